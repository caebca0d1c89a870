// Running the real `kcs` CLI as a child process, as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// `node --import tsx` rather than the tsx CLI: one process, so a signal reaches kcs itself.
const NODE_ARGS = ['--import', 'tsx', 'src/cli.ts'];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `kcs <args>` to completion. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running `kcs <args>` whose output is collected as it comes. */
export class CliProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    this.child.stdout!.on('data', (c: Buffer) => (this.stdout += c));
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c));
  }

  /** Waits until `predicate` holds, polling every 50 ms, failing after `ms`. */
  async until(predicate: () => boolean | Promise<boolean>, ms = 20_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await predicate()) return;
      if (this.child.exitCode !== null) throw new Error(`kcs exited (${this.child.exitCode}) before ${what}:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}:\n${this.stdout}\n${this.stderr}`);
  }

  /** SIGTERM, then the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((done) => this.child.once('exit', (code) => done(code)));
    this.child.kill('SIGTERM');
    return exited;
  }
}

/** One HTTP request with fetch-like ergonomics (Node's fetch cannot set Host). */
export async function httpJson(port: number, host: string, method: string, path: string, key?: string, body?: unknown) {
  const { request } = await import('node:http');
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1', port, method, path,
        headers: {
          host,
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
