// The console's check of a chosen or dropped file before it is uploaded (src-shared/file-sniff.ts holds the rule).
import { notCsvReason, SNIFF_BYTES } from '../../../src-shared/file-sniff';

/** notCsvReason for a File the user chose or dropped. */
export async function sniffFile(file: File): Promise<string | null> {
  const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
  return notCsvReason(file.name, file.size, head);
}
