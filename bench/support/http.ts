// One HTTP request from a benchmark's main process to a server on this machine. node:http rather
// than fetch(), which cannot send a Host header of its own (the tenant's).
import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Request {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  agent?: Agent;
  timeoutMs?: number;
}

export function request(port: number, { method = 'GET', path, headers = {}, body, agent, timeoutMs = 120_000 }: Request): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers: { ...headers, ...length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}
