// Every screen's address (issue 13 §2): the builders and parsers the links, the palette and the pages share.
import { describe, expect, it } from 'vitest';
import { deliveryFilterOf, historyFilterOf, isRoutingTab, isVerifyKind, listPageOf, paths, sectionOf } from '../../../src-renderer/app/routes';
import { SECTIONS } from '../../../src-renderer/app/store';

describe('addresses', () => {
  it('gives every section an address that reads back as that section', () => {
    for (const s of SECTIONS) expect(sectionOf(paths.section(s))).toBe(s);
    expect(sectionOf('/')).toBe('dashboard');
    expect(sectionOf('/no-such-screen')).toBeNull();
  });

  it('writes History filters in a fixed order, leaves empty ones out, and reads them back', () => {
    const path = paths.history({ country: 'NG', status: 'failed', from: '2026-11-01', to: '' });
    expect(path).toBe('/history?status=failed&country=NG&from=2026-11-01');
    expect(historyFilterOf(new URLSearchParams(path.split('?')[1]))).toEqual({ status: 'failed', country: 'NG', from: '2026-11-01' });
    expect(paths.history()).toBe('/history');
    expect(paths.verification('ver_1', { status: 'success' })).toBe('/history/ver_1?status=success');
  });

  it('names webhooks, deliveries and batch jobs, with the delivery filter only when it is one', () => {
    expect(paths.webhook('wh_1', 'failed')).toBe('/webhooks/wh_1?deliveries=failed');
    expect(paths.delivery('wh_1', 'del_2')).toBe('/webhooks/wh_1/deliveries/del_2');
    expect(paths.webhooks({ status: 'failed', event: null })).toBe('/webhooks?status=failed');
    // A selected webhook keeps the list's filters (report #7).
    expect(paths.webhook('wh_1', null, { status: 'active', event: 'verification.failed' })).toBe('/webhooks/wh_1?status=active&event=verification.failed');
    expect(paths.delivery('wh_1', 'del_2', 'failed', { status: 'active' })).toBe('/webhooks/wh_1/deliveries/del_2?status=active&deliveries=failed');
    // The list's page, beyond the first, is in the address too, also beside a selection.
    expect(paths.webhooks({ status: 'failed', page: 2 })).toBe('/webhooks?status=failed&page=2');
    expect(paths.webhooks({ page: 1 })).toBe('/webhooks');
    expect(paths.webhook('wh_1', null, { page: 3 })).toBe('/webhooks/wh_1?page=3');
    expect(paths.delivery('wh_1', 'del_2', null, { page: 3 })).toBe('/webhooks/wh_1/deliveries/del_2?page=3');
    expect([listPageOf('2'), listPageOf(null), listPageOf('0'), listPageOf('-1'), listPageOf('2x'), listPageOf('1e3')]).toEqual([2, 1, 1, 1, 1, 1]);
    expect(paths.batchJob('job_9')).toBe('/routing/batch/job_9');
    expect(deliveryFilterOf('failed')).toBe('failed');
    expect(deliveryFilterOf('bogus')).toBeNull();
  });

  it('keeps the dashboard default period out of the address and checks tab names', () => {
    expect(paths.dashboard('today')).toBe('/dashboard');
    expect(paths.dashboard('7d')).toBe('/dashboard?period=7d');
    expect(isVerifyKind('phone')).toBe(true);
    expect(isVerifyKind('fax')).toBe(false);
    expect(isRoutingTab('directory')).toBe(true);
    expect(isRoutingTab('nope')).toBe(false);
  });
});
