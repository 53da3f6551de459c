// The command line's pure parts: value parsing, durations, terminal widths, the progress lines.
import { describe, expect, it } from 'vitest';
import { closest } from '../../src/cli/base/args.js';
import { describeError } from '../../src/cli/base/errors.js';
import { truncate, visibleWidth } from '../../src/cli/base/style.js';
import { clock, parseAssignment, parseDuration, typedValue } from '../../src/cli/base/values.js';
import { RunState } from '../../src/cli/live/run-state.js';
import { renderRun } from '../../src/cli/live/run-view.js';
import { withSubmitted } from '../../src/core/index.js';
import { AuthenticationError, JobFailedError, TimeoutError } from '../../src/index.js';

const help = 'graphcloud run --help';
const plain = (_format: unknown, text: string): string => text;

describe('parseDuration()', () => {
  it.each([
    ['90s', 90_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['2', 2_000],
    ['1.5m', 90_000],
    ['NONE', false],
  ] as const)('%s is %s', (text, ms) => {
    expect(parseDuration(text, '--timeout', help)).toBe(ms);
  });

  it.each(['10 minutes', '-5s', '0', '5x', '', '1h 30m'])('refuses "%s"', (text) => {
    expect(() => parseDuration(text, '--timeout', help)).toThrow(/--timeout/);
  });

  it('caps a huge duration at the longest timer', () => {
    expect(parseDuration('100000h', '--timeout', help)).toBe(2 ** 31 - 1);
  });
});

describe('typedValue()', () => {
  const set = (text: string) => parseAssignment(text, '--set', help);
  it('takes the type of the value it replaces', () => {
    expect(typedValue(set('a=42'), 7, '--set', help)).toBe(42);
    expect(typedValue(set('a=42'), 'text', '--set', help)).toBe('42');
    expect(typedValue(set('a=false'), true, '--set', help)).toBe(false);
    expect(typedValue(set('a=no'), true, '--set', help)).toBe(false);
  });

  it('reads numbers and true/false when there is no value to follow, text otherwise', () => {
    expect(typedValue(set('a=1e3'), undefined, '--set', help)).toBe(1000);
    expect(typedValue(set('a=true'), undefined, '--set', help)).toBe(true);
    expect(typedValue(set('a=yes'), undefined, '--set', help)).toBe('yes');
    expect(typedValue(set('a='), undefined, '--set', help)).toBe('');
  });

  it('reads key:=value as JSON', () => {
    expect(typedValue(set('a:=[1,"x"]'), 'text', '--set', help)).toEqual([1, 'x']);
    expect(() => typedValue(set('a:=nope'), undefined, '--set', help)).toThrow('--set a:=… takes JSON, and "nope" is not JSON (text is written a=text).');
  });

  it('refuses text where a number or a boolean is', () => {
    expect(() => typedValue(set('seed=abc'), 1, '--set', help)).toThrow('--set seed takes a number (it is 1 in the workflow), received "abc".');
    expect(() => typedValue(set('on=maybe'), false, '--set', help)).toThrow('--set on takes true or false, received "maybe".');
  });
});

describe('terminal text', () => {
  it('measures wide characters and ignores escape sequences', () => {
    expect(visibleWidth('\x1b[32m✔\x1b[39m done')).toBe(6);
    expect(visibleWidth('画像')).toBe(4);
  });

  it('cuts to a width with an ellipsis, keeping escapes and resetting colour', () => {
    expect(truncate('KSampler (#3) 12/20 steps', 10)).toBe('KSampler …');
    expect(visibleWidth(truncate('\x1b[32m██████████\x1b[39m', 5))).toBe(5);
    expect(truncate('\x1b[32m██████████\x1b[39m', 5).endsWith('\x1b[0m')).toBe(true);
    expect(truncate('short', 10)).toBe('short');
  });

  it('clock() shows minutes and seconds, and hours past one', () => {
    expect(clock(75_000)).toBe('01:15');
    expect(clock(3_725_000)).toBe('1:02:05');
  });

  it('closest() suggests near names only', () => {
    expect(closest('uplaod', ['upload', 'run'])).toBe('upload');
    expect(closest('jbs', ['jobs', 'sim'])).toBe('jobs');
    expect(closest('xyz', ['upload', 'run'])).toBeUndefined();
  });
});

describe('renderRun()', () => {
  const workflow = {
    '3': { class_type: 'KSampler', inputs: {} },
    '6': { class_type: 'CLIPTextEncode', inputs: {}, _meta: { title: 'Positive' } },
    '9': { class_type: 'SaveImage', inputs: {} },
  };
  // The events as the SDK delivers them: each message, then the job's overall progress it changed.
  const job = { promptId: 'p', cached: 1, total: 3 };
  function running(): RunState {
    const state = new RunState(workflow, 0);
    state.submitted('5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f');
    state.onEvent({ type: 'execution_cached', data: { prompt_id: 'p', nodes: ['6'] } });
    state.onEvent({ type: 'job_progress', data: { ...job, done: 1, node: undefined, nodeFraction: 0, fraction: 1 / 3 } });
    state.onEvent({ type: 'executing', data: { prompt_id: 'p', node: '3' } });
    state.onEvent({ type: 'job_progress', data: { ...job, done: 1, node: '3', nodeFraction: 0, fraction: 1 / 3 } });
    state.onEvent({ type: 'progress', data: { prompt_id: 'p', node: '3', value: 10, max: 20 } });
    state.onEvent({ type: 'job_progress', data: { ...job, done: 1, node: '3', nodeFraction: 0.5, fraction: 0.5 } });
    return state;
  }

  it('shows the overall and node progress, the node and the time', () => {
    expect(renderRun(running(), 100, 0, plain, 12_000)).toEqual([
      '⠋  Running  job 5d1e2c3a  00:12',
      `  ${'█'.repeat(20)}${'░'.repeat(20)}   50%  1 of 3 nodes`,
      `  KSampler #3  ${'█'.repeat(12)}${'░'.repeat(12)}  10/20`,
    ]);
  });

  it('keeps two short lines under 60 columns and one under 32', () => {
    expect(renderRun(running(), 50, 1, plain, 12_000)).toEqual(['⠙ Running 50% 00:12', '  KSampler #3 10/20']);
    expect(renderRun(running(), 30, 2, plain, 12_000)).toEqual(['⠹ 50% KSampler #3 10/20']);
  });

  it('shows the queue position while pending', () => {
    const state = new RunState(workflow, 0);
    state.submitted('5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f');
    state.queuePosition = 3;
    expect(renderRun(state, 100, 0, plain, 4_000)).toEqual(['⠋  Queued  job 5d1e2c3a  00:04', '  position 3 in the queue']);
  });

  it('names a titled node by its title and class', () => {
    const state = running();
    expect(state.nodeName('6')).toBe('Positive (CLIPTextEncode) #6');
    expect(state.nodeName('42')).toBe('node 42');
  });
});

describe('describeError()', () => {
  const context = { service: 'cloud', keyVariable: 'GRAPHCLOUD_API_KEY', urlVariable: 'GRAPHCLOUD_CLOUD_URL', keyMissing: false };
  it('maps outcomes to the documented exit codes', () => {
    const failed = new JobFailedError({ promptId: 'p1', status: 'failed', outputs: {}, nodeErrors: {}, outputsComplete: true, via: 'socket', error: { message: 'boom', nodeId: '3', nodeType: 'KSampler' } });
    expect(describeError(failed, context)).toMatchObject({ exitCode: 1, message: 'Job p1 failed in node 3 (KSampler): boom.' });
    const cancelled = new JobFailedError({ promptId: 'p1', status: 'cancelled', outputs: {}, nodeErrors: {}, outputsComplete: true, via: 'socket' });
    expect(describeError(cancelled, context).exitCode).toBe(5);
    const timeout = withSubmitted(new TimeoutError('waiting for job p1', 5_000), { kind: 'job', promptId: 'p1' });
    expect(describeError(timeout, context)).toMatchObject({ exitCode: 4, submitted: 'job p1', fix: 'Wait for it again with `graphcloud jobs watch p1`.' });
    const auth = new AuthenticationError({ status: 401, method: 'GET', url: 'http://x/api/prompt', body: undefined });
    expect(describeError(auth, { ...context, keyMissing: true })).toMatchObject({ exitCode: 3, message: 'The cloud needs a key, and none is set.', fix: 'Set GRAPHCLOUD_API_KEY.' });
    expect(describeError(new Error('weird'), context)).toMatchObject({ exitCode: 6, message: 'Unexpected error: weird' });
  });
});

describe('renderBatch(): a batch through a run queue (issue 30)', () => {
  it('says a set\'s worker is lost and when it is taken over at the latest, and that no worker is connected (ETA --:--)', async () => {
    const { BatchState } = await import('../../src/cli/live/batch-state.js');
    const { renderBatch } = await import('../../src/cli/live/batch-view.js');
    const state = new BatchState(4, undefined, 0);
    state.start(1, 0);
    state.submitted(1, '5d1e2c3a-8c4e-4f0e-9a51-0b6f1c2d3e4f');
    state.start(2, 0);
    state.submitted(2, '9c0e5fdc-9191-4505-b140-20a88f7575af');
    state.finish(2, 'done');
    state.active.get(1)!.lostUntil = 41_200 + 5_000;
    const lines = renderBatch(state, 100, 0, plain, 5_000);
    expect(lines).toContain('  #1  job 5d1e2c3a  worker lost, taken over within 42 s');
    expect(lines.join('\n')).not.toContain('queued on the server');
    expect(lines[2]).toMatch(/ \d\d:\d\d$/);
    state.noWorker = 'renders';
    const none = renderBatch(state, 100, 0, plain, 5_000);
    expect(none).toContain('  #1  job 5d1e2c3a  worker lost, taken over once a worker connects');
    expect(none.at(-1)).toBe('  no worker connected to queue renders: start one with `graphcloud worker --queue renders`');
    expect(none[2]).toMatch(/ --:--$/);
  });
});
