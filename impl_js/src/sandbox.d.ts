export const MAX_SYMLINKS: number;
export type IsolationMode = "off" | "workspace" | "allowlist";
export type CheckReason = "isolation_off" | "invalid_path" | "symlink_loop" | "in_workspace" | "in_allowed_path" | "outside";
export interface PathCheck {
  allowed: boolean;
  reason: CheckReason;
  resolved: string | null;
}
export type ContainerRuntime = "docker" | "podman" | "k8s";
export class SymlinkLoopError extends Error {}
export function canonicalize(path: string, base: string): string;
export function isInside(path: string, directory: string): boolean;
export class Sandbox {
  constructor(config: { mode: string; allowedPaths?: readonly string[] }, workspace: string);
  readonly mode: IsolationMode;
  readonly workspace: string;
  readonly allowedPaths: readonly string[];
  check(path: string): PathCheck;
  checkPath(path: string): boolean;
}
export function detectContainer(root?: string, env?: Record<string, string | undefined>): ContainerRuntime | null;
export function defaultMode(container: ContainerRuntime | null): IsolationMode;
