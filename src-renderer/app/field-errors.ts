// A refusal's details placed where a person reads them: those of a field the form shows go under that field, as a
// sentence ("a user with this email already exists" → "A user with this email already exists."); the rest stays for
// the form's box. Shared by the forms that show the service's field refusals (Add a user, Add provider).
import { ConsoleError } from '../client/bridge';

export interface PlacedDetails {
  /** By form field: the first detail of that field (`routes.3` is the field `routes`), in words. */
  under: Record<string, string>;
  /** The details of no field the form shows. */
  rest: { field: string; message: string }[];
}

export function sentence(message: string): string {
  const t = message.trim();
  return t ? `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}` : t;
}

export function placeDetails(error: unknown, fields: ReadonlySet<string>): PlacedDetails {
  const under: Record<string, string> = {};
  const rest: { field: string; message: string }[] = [];
  if (!(error instanceof ConsoleError)) return { under, rest };
  for (const d of error.details) {
    const field = d.field.split('.')[0] ?? '';
    if (fields.has(field) && under[field] === undefined) under[field] = sentence(d.message);
    else rest.push(d);
  }
  return { under, rest };
}
