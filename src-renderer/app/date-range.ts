// A From / To pair of day fields (YYYY-MM-DD, both inclusive in the console): a To before From can match nothing, so
// the console says so under To instead of showing an empty list that only says "widen or clear".

/** The message for the To field when the range is reversed, else undefined (either field empty: no range to judge). */
export function reversedRangeError(from: string, to: string): string | undefined {
  if (!from || !to) return undefined;
  // Day strings of one form compare as text; a partial value the browser has not finished is not judged.
  if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) return undefined;
  return to < from ? 'Before From: no day is in this range. Swap or change the dates.' : undefined;
}
