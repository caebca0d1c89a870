import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

export function createLogger(level: LogLevel, name: string): Logger {
  return pino({ name, level, base: { pid: process.pid } });
}
