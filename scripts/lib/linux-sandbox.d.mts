export interface SandboxIo {
  platform?: string;
  read?: (path: string) => string | null;
  stat?: (path: string) => { uid: number; mode: number } | null;
}
export function linuxSandboxProblem(electronPath: string, io?: SandboxIo): { helper: string; message: string } | null;
