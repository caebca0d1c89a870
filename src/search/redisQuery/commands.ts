// The FT commands a search of one collection sends: FT.SEARCH and FT.AGGREGATE with their replies
// parsed (replies.ts), FT.SPELLCHECK for the terms an index lacks, and document ids from keys.
import type { Store } from '../../store/redis.js';
import { parseAggregateReply, parseSearchReply, parseSpellcheckReply, type ParsedReply } from './replies.js';
import type { Collection } from './schema.js';

/** FT.SEARCH arguments after the query, and its DIALECT ('2' unless given). */
export interface SearchArgs {
  args: (string | Buffer)[];
  dialect?: string;
}

export class IndexCommands {
  constructor(private readonly redis: Store) {}

  async query(c: Collection, query: string, { args, dialect = '2' }: SearchArgs): Promise<ParsedReply> {
    const reply = await this.redis.call('FT.SEARCH', c.index, query, ...args, 'DIALECT', dialect);
    return parseSearchReply(reply, { withScores: args.includes('WITHSCORES'), noContent: args.includes('NOCONTENT') });
  }

  /** How many documents a query matches. */
  async count(c: Collection, query: string): Promise<number> {
    return (await this.query(c, query, { args: ['NOCONTENT', 'LIMIT', '0', '0'] })).total;
  }

  async ids(c: Collection, query: string, k: number): Promise<string[]> {
    return (await this.query(c, query, { args: ['NOCONTENT', 'LIMIT', '0', String(k)] })).rows.map((r) => this.idOf(c, r.key));
  }

  /** Value counts of a field over a query's matches: the `top` most frequent (null: all). */
  async aggregate(c: Collection, query: string, { field, top }: { field: string; top: number | null }): Promise<ParsedReply> {
    const which = top ? ['SORTBY', '4', '@count', 'DESC', `@${field}`, 'ASC', 'MAX', String(top)] : ['LIMIT', '0', '1000000'];
    return parseAggregateReply(
      await this.redis.call('FT.AGGREGATE', c.index, query, 'GROUPBY', '1', `@${field}`, 'REDUCE', 'COUNT', '0', 'AS', 'count', ...which, 'DIALECT', '2'),
    );
  }

  /** The terms among `terms` that the index holds in no document. */
  async missingTerms(c: Collection, terms: string[]): Promise<Set<string>> {
    if (terms.length === 0) return new Set();
    return parseSpellcheckReply(await this.redis.call('FT.SPELLCHECK', c.index, terms.join(' '), 'DIALECT', '2'));
  }

  idOf(c: Collection, key: string): string {
    return key.slice(c.prefix.length);
  }
}
