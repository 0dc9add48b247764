// The audit trail (docs/audit.md): an append-only, hash-chained log per organization in the store. Every entry is
// written in the transaction of the change it records — no change without its entry, no entry without its change —
// and carries the previous entry's hash and its own: SHA-256 over a canonical JSON encoding of every field. The
// chain can be verified in the store or, from an export, offline by anyone (`vconsole audit verify --file`).
import { AUDIT_CHAINS_BEFORE_TRAIL_SETTING } from '../../store/migrations/027-audit-chains-before-trail';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../idempotency/idempotency';
import type { CoreDeps } from '../context';
import { iso } from '../clock';
import { newId } from '../ids';
import { faultPoint } from '../fault-points';
import { firstOrganizationId } from '../orgs/first-organization';
import type { AuditEvent } from '../../../src-shared/schemas/audit';
import { currentAuditContext, type AuditActor, type AuditDoor } from './audit-context';
import type { SqlQueries } from '../../store/sql-port';
import type { LongReads } from '../../store/reader-thread';
import type { Principal } from '../principal';
import { dialectOf } from '../../store/pg/dialect';
import { ListFilter, listPage } from '../../store/list-query';

export const GENESIS_HASH = '0'.repeat(64);
export const AUDIT_EXPORT_FORMAT = 'vconsole-audit-1';

/** An entry as stored, exported and served: the contract's AuditEvent (src-shared/schemas/audit.ts). */
export type AuditEntry = AuditEvent;

/** What a change records: its action, its target and a detail that never holds a secret. */
export interface AuditRecord {
  action: string;
  target?: { type: string; id: string | null };
  detail?: Record<string, unknown>;
  /** Overrides the context's actor (sign-in attempts: the email that tried). */
  actor?: AuditActor;
}

/** Keys whose values never enter the log, whatever object carries them. */
const SECRET_KEYS = /secret|password|token|credential|apikey|^key$|authorization|signature/i;

/** A copy of `detail` with secret-looking fields replaced, so a careless caller cannot leak one into the log. */
export function redact(detail: unknown): unknown {
  if (Array.isArray(detail)) return detail.map(redact);
  if (detail === null || typeof detail !== 'object') return detail;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail as Record<string, unknown>)) {
    if (v === undefined) continue;
    out[k] = SECRET_KEYS.test(k) && typeof v !== 'boolean' ? '[redacted]' : redact(v);
  }
  return out;
}

export function entryHash(e: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256')
    .update(
      canonicalJson({
        v: 1,
        id: e.id,
        organizationId: e.organizationId,
        seq: e.seq,
        at: e.at,
        actor: e.actor,
        door: e.door,
        action: e.action,
        target: e.target,
        detail: e.detail,
        prevHash: e.prevHash,
      }),
    )
    .digest('hex');
}

async function labelOf(q: SqlQueries, p: Principal): Promise<AuditActor> {
  if (p.kind === 'apiKey' && p.keyId) {
    const row = await q.get<{ name: string }>('SELECT name FROM api_keys WHERE id = ?', [p.keyId]);
    return { type: 'apiKey', id: p.keyId, label: row ? `API key "${row.name}" (${p.environment})` : `API key ${p.keyId}` };
  }
  if (p.kind === 'user' && p.userId) {
    const row = await q.get<{ email: string }>('SELECT email FROM users WHERE id = ?', [p.userId]);
    return { type: 'user', id: p.userId, label: row?.email ?? p.userId };
  }
  return { type: 'console', id: null, label: 'Console (owner)' };
}

/** Who acts and through which door: what an entry records besides its change. */
export interface AuditWho {
  actor: AuditActor;
  door: AuditDoor;
}

/**
 * The actor and door of the current context (the system when outside any door). The context is the door's
 * AsyncLocalStorage (audit-context.ts), engine-neutral; `q` only reads the label of a principal (a key's name, a
 * user's email) through whatever handle the caller holds (the port, or its transaction).
 */
export async function currentActor(q: SqlQueries): Promise<AuditWho> {
  const ctx = currentAuditContext();
  if (!ctx) return { actor: { type: 'system', id: null, label: 'system' }, door: 'system' };
  if (ctx.principal) return { actor: await labelOf(q, ctx.principal), door: ctx.door };
  return { actor: ctx.actor ?? { type: 'system', id: null, label: 'system' }, door: ctx.door };
}

async function head(q: SqlQueries, organizationId: string): Promise<{ seq: number; hash: string }> {
  const last = await q.get<{ seq: number; hash: string }>('SELECT seq, hash FROM audit_events WHERE organization_id = ? ORDER BY seq DESC LIMIT 1', [organizationId]);
  if (last) return last;
  const cp = await q.get<{ seq: number; hash: string }>('SELECT seq, hash FROM audit_checkpoints WHERE organization_id = ?', [organizationId]);
  return cp ?? { seq: 0, hash: GENESIS_HASH };
}

/**
 * Appends an entry. Must run inside the transaction of the change it records (callers use `audited()` or call it
 * with their transaction's handle, `{ ...deps, sql: tx }`), so both commit or neither does. Without `who`, the
 * actor is the current door context's (currentActor).
 */
export async function appendAudit(deps: Pick<CoreDeps, 'sql' | 'clock'>, organizationId: string, r: AuditRecord, who?: AuditWho): Promise<AuditEntry> {
  const q = deps.sql;
  if (!q.inTransaction) throw new Error(`audit entry ${r.action} written outside a transaction: it must share the change's transaction`);
  const by = who ?? (await currentActor(q));
  const h = await head(q, organizationId);
  const base: Omit<AuditEntry, 'hash'> = {
    id: newId('aud'),
    organizationId,
    seq: h.seq + 1,
    at: iso(deps.clock.now()),
    actor: r.actor ?? by.actor,
    door: by.door,
    action: r.action,
    target: { type: r.target?.type ?? null, id: r.target?.id ?? null },
    detail: redact(r.detail ?? {}) as Record<string, unknown>,
    prevHash: h.hash,
  };
  const entry: AuditEntry = { ...base, hash: entryHash(base) };
  // The change is written but not committed: a crash here must leave neither (test/integration/audit).
  faultPoint('before-audit-entry');
  await q.run(
    `INSERT INTO audit_events (organization_id, seq, id, at, actor_type, actor_id, actor_label, door, action, target_type, target_id, detail, prev_hash, hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      entry.organizationId,
      entry.seq,
      entry.id,
      entry.at,
      entry.actor.type,
      entry.actor.id,
      entry.actor.label,
      entry.door,
      entry.action,
      entry.target.type,
      entry.target.id,
      canonicalJson(entry.detail),
      entry.prevHash,
      entry.hash,
    ],
  );
  // The chain's first entry ever: an organization from before the trail (chainsBeforeTrail) loses its allowance for
  // an empty chain here, in the same transaction, so deleting its entries later is a deletion like any other's.
  if (entry.seq === 1 && entry.prevHash === GENESIS_HASH) await leaveChainsBeforeTrail(q, organizationId);
  return entry;
}

/** Takes an organization off the list of chains that may be empty (migration 27's settings row), if it is on it. */
async function leaveChainsBeforeTrail(q: SqlQueries, organizationId: string): Promise<void> {
  const before = await chainsBeforeTrail(q);
  if (!before.has(organizationId)) return;
  const rest = [...before].filter((id) => id !== organizationId);
  if (rest.length === 0) await q.run('DELETE FROM settings WHERE key = ?', [AUDIT_CHAINS_BEFORE_TRAIL_SETTING]);
  else await q.run('UPDATE settings SET value = ? WHERE key = ?', [JSON.stringify(rest), AUDIT_CHAINS_BEFORE_TRAIL_SETTING]);
}

/**
 * appendAudit into the installation's log: installation-wide changes (live providers, cache lifetimes, console
 * sessions) go to the first organization's, whose owners run the installation; nothing before setup.
 */
export async function appendInstallationAudit(deps: Pick<CoreDeps, 'sql' | 'clock'>, r: AuditRecord, who?: AuditWho): Promise<void> {
  const org = await firstOrganizationId(deps);
  if (org) await appendAudit(deps, org, r, who);
}

/**
 * Runs a change and its audit entry in one transaction (a savepoint when `deps.sql` is already a transaction's
 * handle). `change` gets the transaction's handle and must write through it (the port refuses to be used from
 * inside its own transaction). The record may depend on the change's result (the id it created). The actor is
 * read before the transaction opens, where the change is asked for.
 */
export async function audited<T>(
  deps: Pick<CoreDeps, 'sql' | 'clock'>,
  organizationId: string,
  change: (tx: SqlQueries) => Promise<T>,
  record: (result: T) => AuditRecord | null,
): Promise<T> {
  const who = await currentActor(deps.sql);
  return deps.sql.transaction(async (tx) => {
    const result = await change(tx);
    const r = record(result);
    if (r) await appendAudit({ ...deps, sql: tx }, organizationId, r, who);
    return result;
  });
}

/** An audit_events row as both engines return it. */
export interface AuditRow {
  organization_id: string;
  seq: number;
  id: string;
  at: string;
  actor_type: AuditActor['type'];
  actor_id: string | null;
  actor_label: string;
  door: AuditDoor;
  action: string;
  target_type: string | null;
  target_id: string | null;
  detail: string;
  prev_hash: string;
  hash: string;
}

/** An entry from its stored row (the detail column holds its canonical JSON). */
export function auditEntryFromRow(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    organizationId: r.organization_id,
    seq: r.seq,
    at: r.at,
    actor: { type: r.actor_type, id: r.actor_id, label: r.actor_label },
    door: r.door,
    action: r.action,
    target: { type: r.target_type, id: r.target_id },
    detail: JSON.parse(r.detail) as Record<string, unknown>,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  target?: string;
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

/** Entries newest first, filtered by actor (id or label), action (prefix), target (id), and time. */
export async function listAudit(
  store: SqlQueries,
  organizationId: string,
  q: AuditQuery,
  /**
   * Where the total is counted, and a filtered page read (CoreDeps.longReads): off the event loop where the store
   * allows. The log's one index is (organization, seq), so a count reads the organization's whole range, and a filter
   * reads entry after entry (19–34 ms and 27 ms for 75,000 entries, on every visit and filter of the Audit page).
   */
  reads?: LongReads,
): Promise<{ data: AuditEntry[]; total: number }> {
  const filter = new ListFilter().eq('organization_id', organizationId);
  // Labels and actions match whatever their case, as SQLite's LIKE does.
  const like = dialectOf(store.engine).caseInsensitiveLike;
  const escaped = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);
  if (q.actor) filter.where(`(actor_id = ? OR actor_label ${like} ? ESCAPE '\\')`, q.actor, `%${escaped(q.actor)}%`);
  if (q.action) filter.where(`action ${like} ? ESCAPE '\\'`, `${escaped(q.action)}%`);
  filter.eq('target_id', q.target || undefined);
  // Compared as instants: a bound with an offset (`+01:00`) or without milliseconds is not the stored text's shape.
  if (q.from) filter.where('at >= ?', new Date(q.from).toISOString());
  if (q.to) filter.where('at < ?', new Date(q.to).toISOString());
  const { rows, total } = await listPage<AuditRow>(store, {
    select: '*',
    from: 'audit_events',
    filter,
    orderBy: 'seq DESC',
    limit: q.limit,
    offset: q.offset,
    countWith: reads,
    pageWith: filter.clauses.length > 1 ? reads : undefined,
  });
  return { data: rows.map(auditEntryFromRow), total };
}

export interface ChainStart {
  seq: number;
  hash: string;
}

export interface VerifyResult {
  ok: boolean;
  organizationId: string;
  entries: number;
  /** The newest entry's seq and hash: record it to detect a later truncation of the log's end. */
  head: ChainStart;
  /** The first entry that does not match, and why. */
  firstBad: { seq: number; id: string; reason: string } | null;
}

/**
 * Walks entries in seq order from `start` (genesis, a retention checkpoint, or the entry before a page): each follows
 * the one before and matches its hash. Whether the chain may start there at all is verifyChain's.
 */
export function verifyEntries(organizationId: string, start: ChainStart, entries: AuditEntry[]): VerifyResult {
  let prev = start;
  let n = 0;
  for (const e of entries) {
    n += 1;
    const bad = (reason: string): VerifyResult => ({ ok: false, organizationId, entries: n, head: prev, firstBad: { seq: e.seq, id: e.id, reason } });
    if (e.organizationId !== organizationId) return bad(`belongs to organization ${e.organizationId}`);
    if (e.seq !== prev.seq + 1) return bad(`expected entry ${prev.seq + 1} here, found ${e.seq}: an entry was deleted, inserted or moved`);
    if (e.prevHash !== prev.hash) return bad('its previous-entry hash does not match the entry before it: the log was reordered or an entry replaced');
    const { hash, ...rest } = e;
    if (entryHash(rest) !== hash) return bad('its content does not match its hash: the entry was edited');
    prev = { seq: e.seq, hash };
  }
  return { ok: true, organizationId, entries: n, head: prev, firstBad: null };
}

/** The retention entry a chain's start must match: the newest `audit.pruned` of `entries` (a later prune supersedes). */
function latestPrune(entries: readonly AuditEntry[], after: AuditEntry | null = null): AuditEntry | null {
  let last = after;
  for (const e of entries) if (e.action === 'audit.pruned') last = e;
  return last;
}

/**
 * Why a chain may not start where it does, or null. A chain starts at its genesis (seq 0, the zero hash), and then
 * holds at least its organization's creation entry; or at a retention checkpoint, which the chain itself must prove:
 * its newest `audit.pruned` entry (hashed into the chain, so a forged one changes the head) records a prune through
 * the checkpoint's seq and, in entries written since it was recorded, the checkpoint's hash. A checkpoint row added
 * after deleting the oldest entries is not enough (docs/audit.md, "Integrity").
 */
function startProblem(start: ChainStart, prune: AuditEntry | null, entries: number, emptyAllowed: boolean): string | null {
  if (start.seq === 0 && start.hash === GENESIS_HASH) {
    return entries === 0 && !emptyAllowed ? 'the organization has no audit entries, though its chain begins with its creation: its entries were deleted' : null;
  }
  const from = `the chain starts from a checkpoint after entry #${start.seq}`;
  if (!prune) return `${from}, but no audit.pruned entry in it records that prune: its oldest entries were deleted`;
  const through = prune.detail['throughSeq'];
  if (through !== start.seq) return `${from}, but its latest audit.pruned entry (#${prune.seq}) records a prune through #${String(through)}: entries were deleted from its start`;
  const hash = prune.detail['throughHash'];
  if (hash !== undefined && hash !== start.hash) return `${from}, but its latest audit.pruned entry (#${prune.seq}) gives that entry another hash: the checkpoint was replaced`;
  return null;
}

/**
 * `r` (a walk that verified every entry) unless its start is not justified (startProblem): then the chain is broken at
 * its first entry (or at the one missing after the start, when there is none).
 */
function withStart(r: VerifyResult, start: ChainStart, prune: AuditEntry | null, first: AuditEntry | null, emptyAllowed = false): VerifyResult {
  if (!r.ok) return r;
  const reason = startProblem(start, prune, r.entries, emptyAllowed);
  if (!reason) return r;
  const firstBad = first ? { seq: first.seq, id: first.id, reason } : { seq: start.seq + 1, id: '(missing)', reason };
  return { ok: false, organizationId: r.organizationId, entries: first ? 1 : 0, head: start, firstBad };
}

/**
 * A whole chain from its start: every entry (verifyEntries), and the start itself (startProblem). `emptyAllowed`: a
 * chain with no entry at all from its genesis is not a deletion (an organization from before the audit trail, below).
 */
export function verifyChain(organizationId: string, start: ChainStart, entries: AuditEntry[], emptyAllowed = false): VerifyResult {
  return withStart(verifyEntries(organizationId, start, entries), start, latestPrune(entries), entries[0] ?? null, emptyAllowed);
}

/**
 * The organizations whose chain may be empty: those that had no entry when the store was upgraded past the start of
 * the trail (migration 27 recorded them). Migration 13 wrote no creation entry for the organizations already there,
 * so such a chain is empty until something is audited — its history, not a deletion (upgraded stores, their backups
 * and copies, failed every check and `db copy`). Every other organization's chain holds its creation entry.
 */
async function chainsBeforeTrail(q: SqlQueries): Promise<ReadonlySet<string>> {
  const row = await q.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [AUDIT_CHAINS_BEFORE_TRAIL_SETTING]);
  try {
    const ids: unknown = row ? JSON.parse(row.value) : [];
    return new Set(Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

/** Every organization of the store, and those whose chain may be empty (chainsBeforeTrail). */
export async function storeOrganizations(q: SqlQueries): Promise<{ organizations: string[]; beforeTrail: string[] }> {
  const before = await chainsBeforeTrail(q);
  const organizations = (await q.all<{ id: string }>('SELECT id FROM organizations')).map((o) => o.id);
  return { organizations, beforeTrail: organizations.filter((id) => before.has(id)) };
}

export async function chainStart(q: SqlQueries, organizationId: string): Promise<ChainStart> {
  const cp = await q.get<ChainStart>('SELECT seq, hash FROM audit_checkpoints WHERE organization_id = ?', [organizationId]);
  return cp ?? { seq: 0, hash: GENESIS_HASH };
}

export async function allEntries(q: SqlQueries, organizationId: string): Promise<AuditEntry[]> {
  return (await q.all<AuditRow>('SELECT * FROM audit_events WHERE organization_id = ? ORDER BY seq', [organizationId])).map(auditEntryFromRow);
}

/**
 * Runs reads that must see one state of the log (its entries and where its chain starts): between two awaited
 * statements the retention prune may commit, and a chain read half before and half after it would not verify. A
 * transaction (repeatable read on PostgreSQL, whose default gives each statement its own snapshot); a savepoint
 * when `q` is already a transaction's handle.
 */
export function auditSnapshot<T>(q: SqlQueries, fn: (tx: SqlQueries) => Promise<T>): Promise<T> {
  return q.transaction(fn, { isolation: 'repeatable read' });
}

/** A retention checkpoint row: where an organization's chain starts after pruning. */
export interface AuditCheckpointRow {
  organization_id: string;
  seq: number;
  hash: string;
}

/**
 * Verifies every organization's chain from its rows, whatever engine they were read from (a pure function: the
 * SQLite store, a PostgreSQL copy and `vconsole db copy`'s checks all use it). `rows` in any order; organizations
 * in the order of their ids.
 */
export function verifyAuditChains(
  rows: readonly AuditRow[],
  checkpoints: readonly AuditCheckpointRow[],
  organizations: readonly string[] = [],
  beforeTrail: readonly string[] = [],
): VerifyResult[] {
  const mayBeEmpty = new Set(beforeTrail);
  const byOrg = new Map<string, AuditRow[]>();
  for (const r of rows) {
    const list = byOrg.get(r.organization_id);
    if (list) list.push(r);
    else byOrg.set(r.organization_id, [r]);
  }
  const starts = new Map(checkpoints.map((c) => [c.organization_id, { seq: c.seq, hash: c.hash }]));
  // Every organization has a chain (it starts with its creation entry): one whose entries were all deleted is broken.
  const orgs = [...new Set([...byOrg.keys(), ...starts.keys(), ...organizations])].sort();
  return orgs.map((id) => {
    const entries = (byOrg.get(id) ?? []).sort((a, b) => a.seq - b.seq).map(auditEntryFromRow);
    return verifyChain(id, starts.get(id) ?? { seq: 0, hash: GENESIS_HASH }, entries, mayBeEmpty.has(id));
  });
}

/** Entries verified per read by verifyOrganizationChain: under 10 ms of hashing between two turns of the event loop. */
export const AUDIT_VERIFY_PAGE = 1_000;

interface ChainHeader {
  head_seq: number | null;
  cp_seq: number | null;
  cp_hash: string | null;
}
const CHAIN_HEADER = `SELECT (SELECT max(seq) FROM audit_events WHERE organization_id = ?) AS head_seq,
  (SELECT seq FROM audit_checkpoints WHERE organization_id = ?) AS cp_seq, (SELECT hash FROM audit_checkpoints WHERE organization_id = ?) AS cp_hash`;
// Each page says where the chain started when it was read: a retention prune in between moves it (the page and the
// checkpoint are one statement, so one snapshot).
const CHAIN_PAGE = `SELECT a.*, (SELECT seq FROM audit_checkpoints WHERE organization_id = ?) AS cp_seq FROM audit_events a
  WHERE a.organization_id = ? AND a.seq > ? AND a.seq <= ? ORDER BY a.seq LIMIT ?`;

/**
 * Reads one organization's chain as it stood when asked (its head then), `pageSize` entries per read, through `reads`
 * (CoreDeps.longReads: off the event loop where the store allows), the loop turning between pages. Entries are never
 * changed, only pruned from the start with a checkpoint written: each page is read with the checkpoint (one
 * statement, one snapshot), and a prune between two pages, seen by the checkpoint moving, starts the walk again from
 * the new checkpoint; after three, the chain is read in one snapshot. `begin` is told where each walk starts, then
 * `page` gets each page in order until it returns false; an empty page means the chain ended before the head read at
 * the start with the checkpoint where it was (entries were deleted: a prune would have moved it).
 */
async function walkOrganizationChain(
  q: SqlQueries,
  organizationId: string,
  reads: LongReads,
  pageSize: number,
  begin: (start: ChainStart, headSeq: number) => void,
  page: (entries: AuditEntry[]) => boolean,
): Promise<void> {
  // One walk: a pause of the reader thread is waited out by its first read, not by every page (LongReads.walk).
  reads = reads.walk?.() ?? reads;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const h = (await reads.get<ChainHeader>(CHAIN_HEADER, [organizationId, organizationId, organizationId]))!;
    const start: ChainStart = h.cp_seq === null ? { seq: 0, hash: GENESIS_HASH } : { seq: h.cp_seq, hash: h.cp_hash! };
    const headSeq = h.head_seq ?? start.seq;
    begin(start, headSeq);
    let prevSeq = start.seq;
    let moved = false;
    while (prevSeq < headSeq) {
      const rows = await reads.all<AuditRow & { cp_seq: number | null }>(CHAIN_PAGE, [organizationId, organizationId, prevSeq, headSeq, pageSize]);
      // A page with no rows carries no checkpoint: a prune that removed every entry up to the head read at the start
      // leaves one, so the checkpoint is read again before the chain is said to end there.
      const cpSeq = rows.length > 0 ? rows[0]!.cp_seq : ((await reads.get<ChainHeader>(CHAIN_HEADER, [organizationId, organizationId, organizationId]))?.cp_seq ?? null);
      if (cpSeq !== h.cp_seq || rows.some((r) => r.cp_seq !== h.cp_seq)) {
        moved = true;
        break;
      }
      if (!page(rows.map(auditEntryFromRow)) || rows.length === 0) return;
      prevSeq = rows[rows.length - 1]!.seq;
      // A turn of the event loop between pages, whatever answered the read.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!moved) return;
  }
  // Pruned while it was read, three times (hourly at most): one snapshot of it all.
  const snap = await auditSnapshot(q, async (tx) => ({ start: await chainStart(tx, organizationId), entries: await allEntries(tx, organizationId) }));
  begin(snap.start, snap.entries.at(-1)?.seq ?? snap.start.seq);
  if (snap.entries.length > 0) page(snap.entries);
}

/**
 * Verifies one organization's chain as it stood when asked, AUDIT_VERIFY_PAGE entries per read: the console's check.
 * A chain of 75,000 entries read and hashed at once held the event loop for a second on every visit of the Audit page
 * (every live check is an entry, so an organization's chain grows with its checks); page by page, with its reads off
 * the loop where the store allows (walkOrganizationChain), it is not held. Every entry is hashed, every time: an edit
 * made to the store outside the service is found, wherever it is.
 */
export async function verifyOrganizationChain(
  q: SqlQueries,
  organizationId: string,
  reads: LongReads = q,
  pageSize = AUDIT_VERIFY_PAGE,
): Promise<VerifyResult & { start: ChainStart }> {
  let start: ChainStart = { seq: 0, hash: GENESIS_HASH };
  let prev = start;
  let entries = 0;
  let bad: VerifyResult | null = null;
  let headSeq = 0;
  // What justifies the start (verifyChain): the first entry, and the newest audit.pruned seen.
  let first: AuditEntry | null = null;
  let prune: AuditEntry | null = null;
  await walkOrganizationChain(
    q,
    organizationId,
    reads,
    pageSize,
    (s, head) => {
      start = prev = s;
      headSeq = head;
      entries = 0;
      bad = null;
      first = prune = null;
    },
    (page) => {
      if (page.length === 0) {
        const missing = { seq: prev.seq + 1, id: '(missing)', reason: `expected entry ${prev.seq + 1} here, found none up to ${headSeq}: entries were deleted` };
        bad = { ok: false, organizationId, entries, head: prev, firstBad: missing };
        return false;
      }
      const r = verifyEntries(organizationId, prev, page);
      entries += r.entries;
      if (!r.ok) {
        bad = { ...r, entries };
        return false;
      }
      prev = r.head;
      first ??= page[0]!;
      prune = latestPrune(page, prune);
      return true;
    },
  );
  const emptyAllowed = entries === 0 && (await chainsBeforeTrail(q)).has(organizationId);
  return { ...(bad ?? withStart({ ok: true, organizationId, entries, head: prev, firstBad: null }, start, prune, first, emptyAllowed)), start };
}

/** Every entry, checkpoint and organization of the store, from one snapshot of it (auditSnapshot). */
export async function readAuditChains(q: SqlQueries): Promise<{ rows: AuditRow[]; checkpoints: AuditCheckpointRow[]; organizations: string[]; beforeTrail: string[] }> {
  return auditSnapshot(q, async (tx) => ({
    rows: await tx.all<AuditRow>('SELECT * FROM audit_events'),
    checkpoints: await tx.all<AuditCheckpointRow>('SELECT organization_id, seq, hash FROM audit_checkpoints'),
    ...(await storeOrganizations(tx)),
  }));
}

/**
 * Verifies every organization's chain in the store (read in one snapshot, hashed after it): every organization's,
 * also one that has no entries left.
 */
export async function verifyStore(q: SqlQueries): Promise<VerifyResult[]> {
  const { rows, checkpoints, organizations, beforeTrail } = await readAuditChains(q);
  return verifyAuditChains(rows, checkpoints, organizations, beforeTrail);
}

export interface AuditExport {
  format: typeof AUDIT_EXPORT_FORMAT;
  organizationId: string;
  exportedAt: string;
  /** Where the exported chain starts: genesis, or the checkpoint retention left. */
  start: ChainStart;
  entries: AuditEntry[];
  head: ChainStart;
}

/**
 * An organization's log as an export file's text, JSON (exactly `JSON.stringify(exportAudit(…), null, 2)` and a
 * newline) or CSV (auditCsv), read page by page through `reads` as verifyOrganizationChain reads it and written a page
 * at a time: one string of 46 MB for 75,000 entries, read and serialised at once, held the event loop about a second.
 */
export async function exportAuditText(...args: Parameters<typeof exportAuditParts>): Promise<{ exportedAt: string; entries: number; text: string }> {
  const { parts, ...x } = await exportAuditParts(...args);
  return { ...x, text: parts.join('') };
}

/**
 * exportAuditText's text as the parts it is written in (one per page of entries, and the file's head and tail), for a
 * door that sends them as they are: joining 46 MB into one string alone held the event loop 28 ms.
 */
export async function exportAuditParts(
  q: SqlQueries,
  organizationId: string,
  nowMs: number,
  format: 'json' | 'csv',
  reads: LongReads = q,
  pageSize = AUDIT_VERIFY_PAGE,
): Promise<{ exportedAt: string; entries: number; parts: string[] }> {
  let start: ChainStart = { seq: 0, hash: GENESIS_HASH };
  let head = start;
  let chunks: string[] = [];
  let entries = 0;
  await walkOrganizationChain(
    q,
    organizationId,
    reads,
    pageSize,
    (s) => {
      start = head = s;
      chunks = [];
      entries = 0;
    },
    (page) => {
      if (page.length === 0) return false;
      // As JSON.stringify(…, null, 2) writes each element of `entries`: on its own lines, four spaces in.
      chunks.push(format === 'json' ? page.map((e) => `\n    ${JSON.stringify(e, null, 2).replace(/\n/g, '\n    ')}`).join(',') : auditCsvLines(page));
      entries += page.length;
      const last = page[page.length - 1]!;
      head = { seq: last.seq, hash: last.hash };
      return true;
    },
  );
  const exportedAt = iso(nowMs);
  if (format === 'csv') return { exportedAt, entries, parts: [`${CSV_COLUMNS.join(',')}\r\n`, ...chunks] };
  const shell: AuditExport = { format: AUDIT_EXPORT_FORMAT, organizationId, exportedAt, start, entries: [], head };
  const [before, after] = JSON.stringify(shell, null, 2).split('"entries": []');
  // The pages joined by commas, as JSON.stringify separates the array's elements.
  const body = chunks.flatMap((c, i) => (i === 0 ? [c] : [',', c]));
  return { exportedAt, entries, parts: [`${before}"entries": [`, ...body, `${entries > 0 ? '\n  ' : ''}]${after}\n`] };
}

/** An organization's log from one snapshot of the store (auditSnapshot). */
export async function exportAudit(q: SqlQueries, organizationId: string, nowMs: number): Promise<AuditExport> {
  const { start, entries } = await auditSnapshot(q, async (tx) => ({ start: await chainStart(tx, organizationId), entries: await allEntries(tx, organizationId) }));
  const last = entries[entries.length - 1];
  return { format: AUDIT_EXPORT_FORMAT, organizationId, exportedAt: iso(nowMs), start, entries, head: last ? { seq: last.seq, hash: last.hash } : start };
}

/** Thrown by verifyExport for a file that is not an audit export at all (as opposed to one that does not verify). */
export class NotAnAuditExport extends Error {
  constructor(what: string) {
    super(`not an audit export: ${what}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isChainStart = (v: unknown): v is ChainStart => isObject(v) && Number.isSafeInteger(v['seq']) && typeof v['hash'] === 'string';

/** Checks the parts verifyExport reads, naming the first one missing or of the wrong kind. */
function checkExportShape(x: unknown): asserts x is AuditExport {
  if (!isObject(x)) throw new NotAnAuditExport(`the file holds ${x === null ? 'null' : Array.isArray(x) ? 'a list' : `a ${typeof x}`}, not an object`);
  if (x['format'] !== AUDIT_EXPORT_FORMAT) throw new NotAnAuditExport(`its format is ${JSON.stringify(x['format'] ?? null)}, not "${AUDIT_EXPORT_FORMAT}"`);
  if (typeof x['organizationId'] !== 'string') throw new NotAnAuditExport('it has no organizationId');
  if (!isChainStart(x['start'])) throw new NotAnAuditExport('it has no start (seq and hash)');
  if (!isChainStart(x['head'])) throw new NotAnAuditExport('it has no head (seq and hash)');
  const entries = x['entries'];
  if (!Array.isArray(entries)) throw new NotAnAuditExport('it has no entries list');
  entries.forEach((e: unknown, i) => {
    if (!isObject(e)) throw new NotAnAuditExport(`entry ${i + 1} is not an object`);
    for (const [field, ok] of [
      ['seq', Number.isSafeInteger(e['seq'])],
      ['id', typeof e['id'] === 'string'],
      ['organizationId', typeof e['organizationId'] === 'string'],
      ['prevHash', typeof e['prevHash'] === 'string'],
      ['hash', typeof e['hash'] === 'string'],
    ] as const) {
      if (!ok) throw new NotAnAuditExport(`entry ${i + 1} has no ${field}`);
    }
  });
}

/**
 * Verifies an export offline: its chain from its start, that start itself, and that its stated head is the chain's
 * last entry. An export is always an organization's whole chain, from its genesis or its retention checkpoint to its
 * head (exportAudit, exportAuditParts): one that starts at a checkpoint holds the audit.pruned entry that justifies it
 * (verifyChain), so dropping an export's oldest entries and moving its start does not verify.
 */
export function verifyExport(x: unknown): VerifyResult {
  checkExportShape(x);
  // An export with no entry from its genesis proves nothing either way: its head is the genesis, which a head kept
  // elsewhere tells apart (an organization from before the audit trail exports that).
  const r = verifyChain(x.organizationId, x.start, x.entries, true);
  if (r.ok && (r.head.seq !== x.head.seq || r.head.hash !== x.head.hash)) {
    return { ...r, ok: false, firstBad: { seq: x.head.seq, id: '(head)', reason: 'the stated head does not match the last entry: entries were removed from the end' } };
  }
  return r;
}

const CSV_COLUMNS = ['seq', 'id', 'at', 'actor_type', 'actor_id', 'actor', 'door', 'action', 'target_type', 'target_id', 'detail', 'prev_hash', 'hash'];

function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  // Cells a spreadsheet would run as a formula are neutralised (as the batch CSV exports do).
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function auditCsv(entries: AuditEntry[]): string {
  return `${CSV_COLUMNS.join(',')}\r\n${auditCsvLines(entries)}`;
}

/** The CSV lines of `entries`, each ended by CRLF. */
function auditCsvLines(entries: AuditEntry[]): string {
  let out = '';
  for (const e of entries) {
    out += `${[e.seq, e.id, e.at, e.actor.type, e.actor.id, e.actor.label, e.door, e.action, e.target.type, e.target.id, canonicalJson(e.detail), e.prevHash, e.hash].map(csvCell).join(',')}\r\n`;
  }
  return out;
}

/**
 * Retention: removes entries older than `days`, keeping the chain verifiable from a checkpoint (the seq and hash of
 * the last removed entry), and records that it happened. Returns the number removed per organization.
 */
export async function pruneAudit(deps: Pick<CoreDeps, 'sql' | 'clock'>, days: number): Promise<Record<string, number>> {
  const cutoff = iso(deps.clock.now() - days * 86_400_000);
  return deps.sql.transaction(async (tx) => {
    const inTx = { ...deps, sql: tx };
    const out: Record<string, number> = {};
    // Per organization, the entries before the cutoff by `audit_events_at (organization_id, at)`: what is read is what
    // is removed (a GROUP BY over every organization's entries read the whole log every hour). `seq + 0` keeps
    // PostgreSQL off a backward walk of the primary key (organization_id, seq), which would read every entry kept.
    const orgs = (
      await tx.all<{ id: string; seq: number | null }>(
        'SELECT o.id AS id, (SELECT max(a.seq + 0) FROM audit_events a WHERE a.organization_id = o.id AND a.at < ?) AS seq FROM organizations o ORDER BY o.id',
        [cutoff],
      )
    ).filter((o): o is { id: string; seq: number } => o.seq !== null);
    for (const o of orgs) {
      const last = (await tx.get<{ hash: string }>('SELECT hash FROM audit_events WHERE organization_id = ? AND seq = ?', [o.id, o.seq]))!;
      await tx.run('INSERT INTO audit_prune_guard (active) VALUES (1)');
      const removed = (await tx.run('DELETE FROM audit_events WHERE organization_id = ? AND seq <= ?', [o.id, o.seq])).changes;
      await tx.run('DELETE FROM audit_prune_guard');
      await tx.run(
        'INSERT INTO audit_checkpoints (organization_id, seq, hash, pruned_at) VALUES (?, ?, ?, ?) ON CONFLICT (organization_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, pruned_at = excluded.pruned_at',
        [o.id, o.seq, last.hash, iso(deps.clock.now())],
      );
      // The entry proves the checkpoint (verifyChain): the seq and hash of the last entry removed, where the chain now
      // starts. Entries written before throughHash was recorded carry throughSeq only.
      await appendAudit(
        inTx,
        o.id,
        { action: 'audit.pruned', detail: { removed, throughSeq: o.seq, throughHash: last.hash, olderThan: cutoff, retentionDays: days } },
        { actor: { type: 'system', id: null, label: 'retention' }, door: 'system' },
      );
      out[o.id] = removed;
    }
    return out;
  });
}
