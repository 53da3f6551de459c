import { describe, expect, it } from 'vitest';
import { toApiWorkflow } from '../../../src/cloud/workflow/index.js';
import { objectInfo } from './fixtures/object-info.js';
import { node, workflow } from './helpers.js';

const convert = (ui: unknown) => JSON.parse(JSON.stringify(toApiWorkflow(ui, objectInfo))) as Record<string, { inputs: Record<string, unknown> }>;

describe('toApiWorkflow() widget values saved as an object', () => {
  it('places each value on the widget of the same name (node packs such as VideoHelperSuite save them so)', () => {
    const combine = node({ id: 2, type: 'VHS_VideoCombine', inputs: [['images', 'IMAGE', 1]] });
    combine.widgets_values = { frame_rate: 24, filename_prefix: 'clip', format: 'video/h264-mp4', save_output: false, videopreview: { hidden: false, params: { filename: 'clip_00001.mp4' } } };
    const ui = workflow([node({ id: 1, type: 'LoadImage', outputs: [['IMAGE', [1]]], values: ['a.png', 'image'] }), combine], [[1, 1, 0, 2, 0, 'IMAGE']]);
    expect(convert(ui)['2']!.inputs).toEqual({ frame_rate: 24, filename_prefix: 'clip', format: 'video/h264-mp4', pix_fmt: 'yuv420p', crf: 19, save_output: false, images: ['1', 0] });
  });

  it('adds the widgets a chosen format lists, right after the format, and takes their saved values', () => {
    const combine = node({ id: 1, type: 'VHS_VideoCombine' });
    combine.widgets_values = { frame_rate: 24, filename_prefix: 'clip', format: 'video/h264-mp4', pix_fmt: 'yuv420p10le', crf: 30, save_output: true, videopreview: {} };
    expect(Object.entries(convert(workflow([combine], []))['1']!.inputs)).toEqual([
      ['frame_rate', 24],
      ['filename_prefix', 'clip'],
      ['format', 'video/h264-mp4'],
      ['pix_fmt', 'yuv420p10le'],
      ['crf', 30],
      ['save_output', true],
    ]);
    combine.widgets_values = { format: 'image/gif', pix_fmt: 'yuv420p10le' };
    expect(convert(workflow([combine], []))['1']!.inputs).toEqual({ frame_rate: 8, filename_prefix: 'AnimateDiff', format: 'image/gif', save_output: true });
  });

  it('keeps the default of a widget the object has no key for, and ignores inherited keys', () => {
    const combine = node({ id: 1, type: 'VHS_VideoCombine' });
    combine.widgets_values = JSON.parse('{"frame_rate": 12, "__proto__": {"format": "video/h264-mp4"}}') as Record<string, unknown>;
    expect(convert(workflow([combine], []))['1']!.inputs).toEqual({ frame_rate: 12, filename_prefix: 'AnimateDiff', format: 'image/gif', save_output: true });
  });
});

describe('toApiWorkflow() CustomCombo (the web UI adds its index and option widgets)', () => {
  it('sends the choice, its index among the options, and every option up to the first empty one', () => {
    const prompt = convert(workflow([node({ id: 1, type: 'CustomCombo', values: ['Radial', 0, 'Linear', 'Radial', 'Swirl', ''] })], []));
    expect(Object.entries(prompt['1']!.inputs)).toEqual([
      ['choice', 'Radial'],
      ['index', 1],
      ['option1', 'Linear'],
      ['option2', 'Radial'],
      ['option3', 'Swirl'],
      ['option4', ''],
    ]);
  });

  it('adds an empty option after the last filled one, stops at the first empty one, and gives -1 for a choice that is no option', () => {
    expect(convert(workflow([node({ id: 1, type: 'CustomCombo', values: ['x', 5, 'a', 'b'] })], []))['1']!.inputs).toEqual({ choice: 'x', index: -1, option1: 'a', option2: 'b', option3: '' });
    expect(convert(workflow([node({ id: 1, type: 'CustomCombo', values: ['a', 0, 'a', '', 'late'] })], []))['1']!.inputs).toEqual({ choice: 'a', index: 0, option1: 'a', option2: '' });
  });
});
