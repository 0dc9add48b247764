// Reads a Mantine NumberInput's value for a form check. An empty field is "no value", never 0: `Number('')` is 0,
// and 0 means "off" for the rate limit and the backup schedule, so an empty field must be refused, not applied.

/** The field's number, or null when the field is empty or holds no number. */
export function numberFieldValue(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const text = value.replace(/,/g, '').trim();
  if (text === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}
