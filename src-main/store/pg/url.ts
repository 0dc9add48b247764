// Database URLs: which engine a command works on, and a URL fit to print (never its password).

/** The environment variable that names the team database when no --database is given. */
export const DATABASE_URL_ENV = 'VCONSOLE_DATABASE_URL';

export function isPostgresUrl(s: string): boolean {
  return /^postgres(ql)?:\/\//i.test(s);
}

/** The URL with its password replaced by `***` (query parameters such as `password=` too). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (/pass|secret|key/i.test(k)) u.searchParams.set(k, '***');
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}
