// A reply whose body holds JSON texts kept as they are (stored documents answered unparsed): the
// body is serialised with a placeholder for each text, then each placeholder replaced by its text.
import { randomBytes } from 'node:crypto';
import type { Reply } from './route.js';

/** JSON text to put into a reply as it is (valid JSON: a stored document). */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A 200 JSON reply of `body`, its JsonText values written as they are. */
export function jsonWithTexts(status: number, body: unknown): Reply {
  const texts: string[] = [];
  // A nonce per reply: no string of the body can pass for a placeholder.
  const nonce = randomBytes(6).toString('hex');
  const json = JSON.stringify(body, (_key, value: unknown) => (value instanceof JsonText ? `${nonce}:${texts.push(value.text) - 1}` : value));
  const data = texts.length === 0 ? json : json.replace(new RegExp(`"${nonce}:(\\d+)"`, 'g'), (_, i: string) => texts[Number(i)]);
  return { status, raw: { contentType: 'application/json', data } };
}
