// Writes test/conformance/generated/api.d.ts, the client types openapi-typescript makes from the served OpenAPI
// document (issue 18). Run after an API change: npx tsx scripts/generate-api-types.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../src-main/service';
import { generateApiTypes } from '../test/conformance/api-types';

const dataDir = mkdtempSync(join(tmpdir(), 'vc-api-types-'));
const service = await startService({ port: 0, logLevel: 'silent', dataDir });
try {
  const res = await fetch(`${service.url}/api/v1/openapi.json`);
  if (!res.ok) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
  const file = join(import.meta.dirname, '..', 'test', 'conformance', 'generated', 'api.d.ts');
  writeFileSync(file, await generateApiTypes(await res.json()));
  console.log(`wrote ${file}`);
} finally {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
