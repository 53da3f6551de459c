import { describe, expectTypeOf, it } from 'vitest';
import type { ProxyClient } from '../../src/proxy/client.js';
import type { ImageTask, ImageTaskResult, TaskOf, TaskResultOf, VideoTask, VideoTaskResult } from '../../src/proxy/types.js';

// Type-level only: these functions are never called.
declare const proxy: ProxyClient;
declare const error: Error & { submitted?: { kind: 'job'; promptId: string } | { kind: string; taskId: string } };
const IMG = 'https://cdn.example.com/a.png';

describe('proxy public types', () => {
  it('a submission resolves to the task, or to the result with { wait }', () => {
    expectTypeOf(() => proxy.image.upscale({ image: IMG })).returns.resolves.toEqualTypeOf<ImageTask<'upscale'>>();
    expectTypeOf(() => proxy.image.upscale({ image: IMG }, { wait: true })).returns.resolves.toEqualTypeOf<ImageTaskResult<'upscale'>>();
    expectTypeOf(() => proxy.image.relight({ image: IMG }, { wait: { waitTimeout: 60_000 } })).returns.resolves.toEqualTypeOf<ImageTaskResult<'relight'>>();
    expectTypeOf(() => proxy.image.styleTransfer({ image: IMG, reference_image: IMG }, { wait: false })).returns.resolves.toEqualTypeOf<ImageTask<'styleTransfer'>>();
    expectTypeOf(() => proxy.video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: IMG }, { wait: true })).returns.resolves.toEqualTypeOf<VideoTaskResult<'extend'>>();
    expectTypeOf(() => proxy.video.multiframe({ model: 'videoq2-pro', start_image: IMG, image_settings: [] })).returns.resolves.toEqualTypeOf<VideoTask<'multiframe'>>();
    const flag = Math.random() > 0.5;
    expectTypeOf(() => proxy.video.referenceToVideo({}, { wait: flag })).returns.resolves.toEqualTypeOf<VideoTask<'referenceToVideo'> | VideoTaskResult<'referenceToVideo'>>();
  });

  it('keeps the result type when the options hold callbacks (onUpdate in wait, onSubmitted), and types the task onSubmitted sees', () => {
    expectTypeOf(() => proxy.image.upscale({ image: IMG }, { wait: { onUpdate: (s) => void s.phase } })).returns.resolves.toEqualTypeOf<ImageTaskResult<'upscale'>>();
    expectTypeOf(() => proxy.video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: IMG }, { wait: true, onSubmitted: (task) => void task.taskId })).returns.resolves.toEqualTypeOf<VideoTaskResult<'extend'>>();
    expectTypeOf(() => proxy.image.relight({ image: IMG }, { onSubmitted: (task) => void task.kind })).returns.resolves.toEqualTypeOf<ImageTask<'relight'>>();
    void (() => proxy.video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: IMG }, { onSubmitted: (task) => expectTypeOf(task).toEqualTypeOf<VideoTask<'extend'>>() }));
  });

  it('waitForTask() follows the kind of the task, and takes error.submitted back', () => {
    expectTypeOf(() => proxy.waitForTask({ kind: 'skinEnhancerFaithful', taskId: 't' })).returns.resolves.toEqualTypeOf<ImageTaskResult<'skinEnhancerFaithful'>>();
    expectTypeOf(() => proxy.waitForTask({ kind: 'referenceToVideo', taskId: 't' })).returns.resolves.toEqualTypeOf<VideoTaskResult<'referenceToVideo'>>();
    // A task a submission returned, held in a variable (the common case).
    const video = {} as VideoTask<'referenceToVideo'>;
    const image = {} as ImageTask<'upscale'>;
    expectTypeOf(() => proxy.waitForTask(video, { onUpdate: (s) => void s.phase })).returns.resolves.toEqualTypeOf<VideoTaskResult<'referenceToVideo'>>();
    expectTypeOf(() => proxy.waitForTask(image)).returns.resolves.toEqualTypeOf<ImageTaskResult<'upscale'>>();
    expectTypeOf<TaskResultOf<'upscale' | 'extend'>>().toEqualTypeOf<ImageTaskResult<'upscale'> | VideoTaskResult<'extend'>>();
    expectTypeOf<TaskOf<'relight'>>().toEqualTypeOf<ImageTask<'relight'>>();
    void (() => {
      const lost = error.submitted;
      if (lost && 'taskId' in lost) expectTypeOf(() => proxy.waitForTask(lost)).returns.resolves.toEqualTypeOf<ImageTaskResult | VideoTaskResult>();
    });
  });

  it('params refuse values outside the documented enums, and options refuse the 0.1.0 names', () => {
    // @ts-expect-error '3x' is not a scale factor
    void (() => proxy.image.upscale({ image: IMG, scale_factor: '3x' }));
    // @ts-expect-error extend accepts only the q2 models
    void (() => proxy.video.extend({ model: 'videoq3-pro', video_creation_id: 'c', video_url: IMG }));
    // @ts-expect-error wm_position is 1 to 4
    void (() => proxy.video.referenceToVideo({ wm_position: 5 }));
    // @ts-expect-error the poll delays are `poll: { minDelayMs, maxDelayMs, growFactor }`
    void (() => proxy.waitForTask({ kind: 'upscale', taskId: 't' }, { maxIntervalMs: 3_000 }));
    // @ts-expect-error onUpdate is for waitForTask(); watchTask() yields the statuses
    void (() => proxy.watchTask({ kind: 'upscale', taskId: 't' }, { onUpdate: () => undefined }));
  });
});
