// The palette's "Take the demo tour" line says how many steps the tour has (it said six; the tour has seven).
import { describe, expect, it } from 'vitest';
import { tourSteps, tourSummary } from '../../src-renderer/features/tour/demo-tour';

describe('tourSummary', () => {
  it('counts the steps of the full tour', () => {
    expect(tourSteps({ failedId: 'ver_x', webhookId: 'whk_x', deliveryId: 'del_x', batchId: 'job_x' })).toHaveLength(7);
    expect(tourSummary()).toMatch(/^Seven steps /);
  });
});
