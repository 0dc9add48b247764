// What an image file is, from its first bytes (magic numbers), not its name or declared type: the service checks
// a selfie this way (decisions §4) and the console refuses a non-image the same way before sending it.

/** JPEG (FF D8 FF) or PNG (89 50 4E 47 0D 0A 1A 0A); null for anything else. */
export function imageKind(bytes: Uint8Array): 'jpeg' | 'png' | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'png';
  return null;
}

/** How many leading bytes imageKind needs. */
export const IMAGE_KIND_BYTES = 8;
