// `kcs admin`: tenants, users, API keys and OAuth clients, straight against Redis.
import { parseArgs } from 'node:util';
import type { TSchema } from '@sinclair/typebox';
import type { Services } from '../src/app.js';
import { ConflictError, InvalidError, NotFoundError } from '../src/domain/errors.js';
import { SCOPES } from '../src/schemas/scopes.js';
import { validate } from '../src/schemas/validate.js';
import { TenantSettingsUpdate } from '../src/schemas/tenants.js';
import { ApiKeyCreate, UserCreate } from '../src/schemas/users.js';
import { connectRedis, type RedisAt, type Store } from '../src/store/redis.js';
import { WHOLE } from '../src/store/docs.js';

export const ADMIN_USAGE = `usage: kcs admin <resource> <action> [options]
  tenant create <slug> [--name NAME]
  tenant list
  tenant update <slug> [--variant-strategy all|children_only|parents_only] [--open-registration true|false] [--rate-limit N]
  user create --tenant SLUG --email EMAIL --name NAME
  user list --tenant SLUG
  key create --tenant SLUG --user USER_ID_OR_EMAIL --name NAME --scopes a,b,...|all [--expires-at ISO-8601]
             [--origins https://shop.example,http://localhost:3000]   (browser origins the key may be used from)
  key list --tenant SLUG
  key revoke --tenant SLUG KEY_ID
  client list --tenant SLUG
  client show --tenant SLUG CLIENT_ID
  client delete --tenant SLUG CLIENT_ID       (revokes every token issued to it)
  registration open|close --tenant SLUG        (OAuth registration without an admin key: on|off)
Connects to REDIS_URL, or to the embedded server of KCS_DATA_DIR (started for the command if not running).`;

export interface AdminConnection {
  redis: RedisAt;
  /** The services as the deployment's serve processes build them (the same search projection). */
  createServices: (redis: Store) => Promise<Services>;
  stop: () => Promise<void>;
}

class UsageError extends Error {}

const OPTIONS = {
  name: { type: 'string' },
  tenant: { type: 'string' },
  email: { type: 'string' },
  user: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  origins: { type: 'string' },
  'variant-strategy': { type: 'string' },
  'open-registration': { type: 'string' },
  'rate-limit': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function checked<T>(schema: TSchema, value: unknown, source: 'json' | 'text'): T {
  const result = validate<T>(schema, value, { root: 'option', source });
  if (!result.ok) throw new UsageError(result.errors.map((e) => `${e.loc.slice(1).join('.')}: ${e.msg}`).join('\n'));
  return result.value;
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export async function runAdmin(argv: string[], connect: () => Promise<AdminConnection>): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`kcs admin: ${(error as Error).message}\n${ADMIN_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [resource, action, ...args] = positionals;
  if (values.help || !resource) {
    process.stdout.write(`${ADMIN_USAGE}\n`);
    return 0;
  }

  const connection = await connect();
  const redis = connectRedis(connection.redis, { connectionName: 'kcs-admin' });
  await redis.connect();
  const services = await connection.createServices(redis);
  const need = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
    return value;
  };
  const tenantOf = () => services.tenants.require(need('tenant'));

  try {
    switch (`${resource} ${action}`) {
      case 'tenant create': {
        if (!args[0]) throw new UsageError('tenant create needs a slug');
        print(await services.tenants.create(args[0], values.name ?? args[0]));
        break;
      }
      case 'tenant list':
        print(await services.tenants.list());
        break;
      case 'tenant update': {
        if (!args[0]) throw new UsageError('tenant update needs a slug');
        const raw = Object.fromEntries(
          [
            ['variant_strategy', values['variant-strategy']],
            ['oauth_open_registration', values['open-registration']],
            ['rate_limit_per_s', values['rate-limit']],
          ].filter(([, v]) => v !== undefined),
        );
        const changes = checked<Record<string, never>>(TenantSettingsUpdate, raw, 'text');
        print(await services.tenants.updateSettings(await services.tenants.require(args[0]), changes));
        break;
      }
      case 'user create': {
        const tenant = await tenantOf();
        const input = checked<{ email: string; name: string }>(UserCreate, { email: need('email'), name: need('name') }, 'json');
        print(await services.users.create(tenant.id, { email: input.email, name: input.name }));
        break;
      }
      case 'user list': {
        const tenant = await tenantOf();
        print((await services.users.list(tenant.id, WHOLE)).items);
        break;
      }
      case 'key create': {
        const tenant = await tenantOf();
        const user = await services.users.find(tenant.id, need('user'));
        if (!user) throw new UsageError(`no user ${values.user} in tenant ${tenant.slug}`);
        const scopes = need('scopes') === 'all' ? [...SCOPES] : need('scopes').split(',').map((s) => s.trim());
        const origins = values.origins === undefined ? undefined : values.origins.split(',').map((s) => s.trim()).filter(Boolean);
        const input = checked<{ name: string; scopes: string[]; expires_at?: string; allowed_origins?: string[] }>(
          ApiKeyCreate,
          {
            name: need('name'), scopes,
            ...(values['expires-at'] ? { expires_at: values['expires-at'] } : {}),
            ...(origins ? { allowed_origins: origins } : {}),
          },
          'json',
        );
        const created = await services.apiKeys.create(tenant.id, {
          userId: user.id, name: input.name, scopes: input.scopes, expiresAt: input.expires_at, allowedOrigins: input.allowed_origins,
        });
        print(created);
        process.stderr.write('The key above is shown once; only its digest is stored.\n');
        break;
      }
      case 'key list': {
        const tenant = await tenantOf();
        print(await services.apiKeys.list(tenant.id));
        break;
      }
      case 'key revoke': {
        const tenant = await tenantOf();
        if (!args[0]) throw new UsageError('key revoke needs a key id');
        await services.apiKeys.revoke(tenant.id, args[0].toLowerCase());
        process.stdout.write(`revoked ${args[0]}\n`);
        break;
      }
      case 'client list': {
        const tenant = await tenantOf();
        print(await services.oauth.listClients(tenant.id));
        break;
      }
      case 'client show': {
        const tenant = await tenantOf();
        if (!args[0]) throw new UsageError('client show needs a client id');
        print(await services.oauth.getClient(tenant.id, args[0].toLowerCase()));
        break;
      }
      case 'client delete': {
        const tenant = await tenantOf();
        if (!args[0]) throw new UsageError('client delete needs a client id');
        await services.oauth.deleteClient(tenant.id, args[0].toLowerCase());
        process.stdout.write(`deleted ${args[0]}; its tokens are revoked\n`);
        break;
      }
      case 'registration open':
      case 'registration close': {
        const tenant = await tenantOf();
        print(await services.tenants.updateSettings(tenant, { oauth_open_registration: action === 'open' }));
        break;
      }
      default:
        throw new UsageError(`unknown command: ${resource} ${action ?? ''}`.trim());
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`kcs admin: ${error.message}\n\n${ADMIN_USAGE}\n`);
      return 2;
    }
    if (error instanceof ConflictError || error instanceof NotFoundError || error instanceof InvalidError) {
      process.stderr.write(`kcs admin: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    redis.disconnect();
    await connection.stop();
  }
}
