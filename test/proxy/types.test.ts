import { describe, expectTypeOf, it } from 'vitest';
import type { ImageTask, ImageTaskResult, ProxyClient, TaskResultOf, VideoTask, VideoTaskResult } from '../../src/proxy/index.js';

// Type-level only: these functions are never called.
declare const proxy: ProxyClient;
const IMG = 'https://cdn.example.com/a.png';

describe('proxy public types', () => {
  it('a submission resolves to the task, or to the result with { wait }', () => {
    expectTypeOf(() => proxy.image.upscale({ image: IMG })).returns.resolves.toEqualTypeOf<ImageTask<'upscale'>>();
    expectTypeOf(() => proxy.image.upscale({ image: IMG }, { wait: true })).returns.resolves.toEqualTypeOf<ImageTaskResult>();
    expectTypeOf(() => proxy.image.relight({ image: IMG }, { wait: { timeout: 60_000 } })).returns.resolves.toEqualTypeOf<ImageTaskResult>();
    expectTypeOf(() => proxy.image.styleTransfer({ image: IMG, reference_image: IMG }, { wait: false })).returns.resolves.toEqualTypeOf<ImageTask<'styleTransfer'>>();
    expectTypeOf(() => proxy.video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: IMG }, { wait: true })).returns.resolves.toEqualTypeOf<VideoTaskResult>();
    expectTypeOf(() => proxy.video.multiframe({ model: 'videoq2-pro', start_image: IMG, image_settings: [] })).returns.resolves.toEqualTypeOf<VideoTask<'multiframe'>>();
    const flag = Math.random() > 0.5;
    expectTypeOf(() => proxy.video.referenceToVideo({}, { wait: flag })).returns.resolves.toEqualTypeOf<VideoTask<'referenceToVideo'> | VideoTaskResult>();
  });

  it('keeps the result type when the options hold callbacks (onUpdate in wait, onSubmitted)', () => {
    expectTypeOf(() => proxy.image.upscale({ image: IMG }, { wait: { onUpdate: (s) => void s.phase } })).returns.resolves.toEqualTypeOf<ImageTaskResult>();
    expectTypeOf(() => proxy.video.extend({ model: 'videoq2-pro', video_creation_id: 'c', video_url: IMG }, { wait: true, onSubmitted: (task) => void task.taskId })).returns.resolves.toEqualTypeOf<VideoTaskResult>();
    expectTypeOf(() => proxy.image.relight({ image: IMG }, { onSubmitted: (task) => void task.kind })).returns.resolves.toEqualTypeOf<ImageTask<'relight'>>();
  });

  it('waitForTask() follows the kind of the task', () => {
    expectTypeOf(() => proxy.waitForTask({ kind: 'skinEnhancerFaithful', taskId: 't' })).returns.resolves.toEqualTypeOf<ImageTaskResult>();
    expectTypeOf(() => proxy.waitForTask({ kind: 'referenceToVideo', taskId: 't' })).returns.resolves.toEqualTypeOf<VideoTaskResult>();
    expectTypeOf<TaskResultOf<'upscale' | 'extend'>>().toEqualTypeOf<ImageTaskResult | VideoTaskResult>();
  });

  it('params refuse values outside the documented enums', () => {
    // @ts-expect-error '3x' is not a scale factor
    void (() => proxy.image.upscale({ image: IMG, scale_factor: '3x' }));
    // @ts-expect-error extend accepts only the q2 models
    void (() => proxy.video.extend({ model: 'videoq3-pro', video_creation_id: 'c', video_url: IMG }));
    // @ts-expect-error wm_position is 1 to 4
    void (() => proxy.video.referenceToVideo({ wm_position: 5 }));
  });
});
