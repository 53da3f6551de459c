import { CloudClient, workflow } from 'graphcloud';
import { encodePng, startSimulator } from 'graphcloud/testing';

const sim = await startSimulator();
await using cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });

const wf = workflow();
const photo = wf.node('LoadImage', { image: 'photo.png' }, { title: 'Photo' });
const small = wf.node('ImageScale', { image: photo.out('IMAGE'), upscale_method: 'bilinear', width: 64, height: 0, crop: 'disabled' });
const save = wf.node('SaveImage', { images: small.out('IMAGE'), filename_prefix: 'small' });

const result = await cloud.runWorkflow(wf, { uploads: { 'Photo.image': encodePng(256, 128, [0, 128, 255]) } });
console.log(result.status, result.outputsOf(save).images); // completed [ { filename: 'small_00001_.png', ... } ]
await sim.close();
