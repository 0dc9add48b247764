// Ubuntu 23.10+ (AppArmor's default `kernel.apparmor_restrict_unprivileged_userns=1`) and some hardened kernels
// (`kernel.unprivileged_userns_clone=0`) block the user namespaces Chromium's sandbox uses. Electron then needs its
// setuid helper `chrome-sandbox` owned by root with mode 4755, which an npm install never makes, so Electron aborts
// at launch ("The SUID sandbox helper binary was found, but is not configured correctly"; electron/electron#42510).
// `npm start` checks before launching and prints the fix instead of a crash.
import { statSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const readTrimmed = (p) => {
  try {
    return readFileSync(p, 'utf8').trim();
  } catch {
    return null;
  }
};

/**
 * Returns null when Electron's sandbox can start, else { helper, message } with the commands that fix it.
 * `io` is injectable for tests: { platform, uid, read(path) → string|null, stat(path) → { uid, mode }|null }. Running as
 * root is a problem too: Chromium refuses to start its sandbox as root.
 */
export function linuxSandboxProblem(electronPath, io = {}) {
  const platform = io.platform ?? process.platform;
  if (platform !== 'linux') return null;
  const uid = 'uid' in io ? io.uid : process.getuid?.();
  if (uid === 0) {
    return {
      helper: null,
      message:
        "Electron does not start as root on Linux (Chromium's sandbox refuses it, and turning the sandbox off is not\n" +
        'an option for this app): run `npm start` as an ordinary user.',
    };
  }
  const read = io.read ?? readTrimmed;
  const stat = io.stat ?? ((p) => {
    try {
      return statSync(p);
    } catch {
      return null;
    }
  });
  const apparmor = read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === '1';
  const noClone = read('/proc/sys/kernel/unprivileged_userns_clone') === '0';
  if (!apparmor && !noClone) return null;
  const helper = join(dirname(electronPath), 'chrome-sandbox');
  const s = stat(helper);
  if (s && s.uid === 0 && (s.mode & 0o4755) === 0o4755) return null;
  const why = apparmor
    ? 'this system (Ubuntu 23.10 or later, AppArmor) blocks unprivileged user namespaces'
    : 'this kernel blocks unprivileged user namespaces (kernel.unprivileged_userns_clone=0)';
  return {
    helper,
    message: [
      `Electron's sandbox cannot start: ${why}, so Electron needs its helper ${helper}`,
      'to be owned by root with mode 4755, and it is not. Fix it once (again after each npm install) with:',
      `  sudo chown root:root "${helper}" && sudo chmod 4755 "${helper}"`,
      'or use the .deb package (npm run package:linux), which installs an AppArmor profile and needs no change.',
    ].join('\n'),
  };
}
