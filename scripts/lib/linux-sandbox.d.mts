export interface SandboxIo {
  platform?: string;
  uid?: number | undefined;
  read?: (path: string) => string | null;
  stat?: (path: string) => { uid: number; mode: number } | null;
}
export function linuxSandboxProblem(electronPath: string, io?: SandboxIo): { helper: string | null; message: string } | null;
