import { isIP } from 'node:net';
import path from 'node:path';
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';
import metadata from 'libphonenumber-js/min/metadata';
import { z } from 'zod';
import { READ_RECEIPT_MODES, type TReadReceiptMode } from '../../shared/read-receipts';
import { isKnownTimeZone } from '../../shared/time-zone';
import { SEARCH_LANGUAGES, type TSearchLanguage } from './search-language';

// The only product module that reads process.env (README.md "Configuration"); the provider simulator, a
// development tool, reads its own.

const DEMO_SESSION_SECRET = 'demo-session-secret-not-for-production-use';

const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const booleanFlag = z.preprocess(
  emptyToUndefined,
  z
    .enum(['true', 'false'], { message: 'must be "true" or "false"' })
    .default('false')
    .transform((v) => v === 'true'),
);

function isSecureOrLocal(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'https:' || (protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(hostname));
}

function isTrustedPeer(part: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(part)) return true;
  const [address = '', prefix] = part.split('/');
  return isIP(address) !== 0 && (prefix === undefined || /^\d{1,3}$/.test(prefix));
}

const ZEnv = z.object({
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  // Migrations and maintenance run as this role when requests run as a lesser one (server/records/README.md "Records").
  DATABASE_OWNER_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('.data')),
  SPA_DIR: z.preprocess(emptyToUndefined, z.string().optional()),
  SIGNING_KEY_FILE: z.preprocess(emptyToUndefined, z.string().optional()),
  BACKUP_KEY: optionalString,
  SESSION_SECRET: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  NEXT_PUBLIC_SITE_URL: z.preprocess(emptyToUndefined, z.url({ message: 'must be an absolute URL' }).optional()),
  FIRM_PHONE: z.preprocess(emptyToUndefined, z.string().default('+44 20 7946 0000')),
  DEFAULT_COUNTRY: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() ? value.trim().toUpperCase() : undefined),
    z
      .string()
      .refine((code) => isSupportedCountry(code), 'must be a two-letter ISO country code, such as GB or IE')
      .optional(),
  ),
  FIRM_NAME: z.preprocess(emptyToUndefined, z.string().max(120).default('Ashdown & Vale Solicitors')),
  // The firm's clock for exports' times (server/export/README.md "Evidence exports"), until a director saves business hours in another zone.
  FIRM_TIME_ZONE: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .max(64, 'must be a time zone such as Europe/London')
      .refine(isKnownTimeZone, 'must be a time zone such as Europe/London')
      .default('Europe/London'),
  ),
  SEARCH_LANGUAGE: z.preprocess(
    emptyToUndefined,
    z.enum(SEARCH_LANGUAGES, { message: `must be one of ${SEARCH_LANGUAGES.join(', ')}` }).default('english'),
  ),
  MESSAGING_API_KEY: optionalString,
  MESSAGING_PROVIDER_URL: z.preprocess(
    emptyToUndefined,
    z.url({ message: 'must be an absolute URL' }).default('https://waba-v2.360dialog.io'),
  ),
  MESSAGING_PROFILE_PATH: z.preprocess(
    emptyToUndefined,
    z.string().startsWith('/', 'must start with "/"').default('/whatsapp_business_profile'),
  ),
  MESSAGING_TEMPLATES_PATH: z.preprocess(
    emptyToUndefined,
    z.string().startsWith('/', 'must start with "/"').default('/v1/configs/templates'),
  ),
  // How long a provider call may take before it is given up: a send's outcome is then unknown (server/messaging/README.md "Sending messages").
  MESSAGING_TIMEOUT_SECONDS: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ message: 'must be a number of seconds' })
      .min(0.1, 'must be at least 0.1')
      .max(120, 'must be at most 120')
      .default(10),
  ),
  MESSAGING_WEBHOOK_SECRET: optionalString,
  MESSAGING_WEBHOOK_VERIFY_TOKEN: optionalString,
  ALLOW_UNAUTHENTICATED_WEBHOOKS: booleanFlag,
  // Which direct peers may say who the client is (X-Forwarded-For): the address sign-in limits count.
  TRUST_PROXY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default('loopback')
      .refine(
        (value) => value === 'false' || /^\d+$/.test(value) || value.split(',').every((part) => isTrustedPeer(part.trim())),
        'must be false, a number of proxy hops, or a comma list of loopback, linklocal, uniquelocal and addresses (CIDR allowed)',
      )
      .transform((value): false | number | string => (value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value)),
  ),
  // How long a client may wait for a reply before their conversation is overdue (server/ownership/README.md "Ownership").
  REPLY_TARGET_MINUTES: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(525_600).default(240)),
  // Years records are kept after their case closes, or after the client's last activity (server/records/README.md "Records").
  RETENTION_YEARS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(100).default(6)),
  // Whether opening a conversation shows the client it was read (server/messaging/README.md "Read receipts"): the first
  // default only, until a director sets the policy in Settings.
  READ_RECEIPTS: z.preprocess(
    emptyToUndefined,
    z.enum(READ_RECEIPT_MODES, { message: 'must be "off", "assignee" or "anyone"' }).default('off'),
  ),
  // Single sign-on (server/auth/oidc): on when OIDC_ISSUER is set, which then needs the client's id and secret.
  OIDC_ISSUER: z.preprocess(
    emptyToUndefined,
    z
      .url({ message: 'must be an absolute URL, such as https://login.microsoftonline.com/<tenant>/v2.0' })
      .refine(isSecureOrLocal, 'must be an https:// URL (http:// only for localhost)')
      .optional(),
  ),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  OIDC_ALLOWED_DOMAINS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((part) => part.trim().toLowerCase().replace(/^@/, ''))
          .filter(Boolean),
      )
      .refine(
        (domains) => domains.every((d) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d)),
        'must be a comma list of domains, such as firm.example,firm.co.uk',
      )
      .optional(),
  ),
  OIDC_CREATE_ACCOUNTS: z.preprocess(emptyToUndefined, z.enum(['staff'], { message: 'must be "staff" or unset' }).optional()),
  LOG_LEVEL: z.preprocess(emptyToUndefined, z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
});

export type TMode = 'demo' | 'live';

export type TConfig = {
  port: number;
  databaseUrl: string | undefined;
  /** The owner's URL for migrations and maintenance; unset: DATABASE_URL serves both. */
  databaseOwnerUrl: string | undefined;
  dataDir: string;
  /** Where the built SPA is served from (SPA_DIR; unset: dist/client, which `npm start` builds when stale). */
  spaDir: string | undefined;
  /**
   * The firm's Ed25519 private key (server/decisions/0023-signing-key.md). Unset: `<DATA_DIR>-signing-key.pem`,
   * made at first start (`signingKeyCreate`); a path given must exist, or a typo would make a new key.
   */
  signingKeyFile: string;
  signingKeyCreate: boolean;
  /** BACKUP_KEY as written (32 bytes, hex or base64; read by server/backup): unset, backups are keyed from the signing key. */
  backupKey: string | undefined;
  sessionSecret: string;
  siteUrl: string;
  secureCookies: boolean;
  firmPhone: string;
  /**
   * Where a national number (07700 900123) is read: DEFAULT_COUNTRY, else FIRM_PHONE's country, else
   * (a range the phone library does not place) the main country of FIRM_PHONE's calling code.
   */
  defaultCountry: CountryCode | undefined;
  /** How defaultCountry was found, for the start-up log. */
  defaultCountryFrom: 'DEFAULT_COUNTRY' | 'FIRM_PHONE' | 'calling code' | null;
  firmName: string;
  /** The firm's time zone (IANA name) when no business hours were saved: exports write times in it, UTC beside. */
  firmTimeZone: string;
  /** PostgreSQL text-search configuration of message search (stemming, stop words). */
  searchLanguage: TSearchLanguage;
  /** Minutes a client may wait for a reply before the conversation is overdue. */
  replyTargetMinutes: number;
  /** Years after a case closes, or a client's last activity, before records are due for destruction. */
  retentionYears: number;
  /** The read-receipt policy in force until a director sets one in Settings (server/messaging/README.md "Read receipts"). */
  readReceipts: TReadReceiptMode;
  mode: TMode;
  messaging: {
    apiKey: string | undefined;
    providerUrl: string;
    profilePath: string;
    /** The provider's template catalogue (both list shapes, paged). */
    templatesPath: string;
    /** How long a provider call may take (MESSAGING_TIMEOUT_SECONDS, 10 s by default). */
    timeoutMs: number;
    webhookSecret: string | undefined;
    verifyToken: string | undefined;
    allowUnauthenticatedWebhooks: boolean;
  };
  /** Single sign-on through the firm's OpenID provider; null: not configured (OIDC_ISSUER unset). */
  oidc: TOidcConfig | null;
  /** Express's `trust proxy`: false, a hop count, or named ranges and addresses. */
  trustProxy: false | number | string;
  logLevel: z.infer<typeof ZEnv>['LOG_LEVEL'];
};

export type TOidcConfig = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Email domains that may sign in this way (lower case); empty: any the provider verified. */
  allowedDomains: string[];
  /** `staff`: a verified email with no account gets a staff account; null: refused. */
  createAccounts: 'staff' | null;
  /** What the provider sends people back to: NEXT_PUBLIC_SITE_URL + /api/auth/oidc/callback. */
  redirectUri: string;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates the environment once; a bad value throws naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): TConfig {
  const parsed = ZEnv.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const mode: TMode = e.MESSAGING_API_KEY ? 'live' : 'demo';
  if (mode === 'live' && !e.SESSION_SECRET) {
    throw new ConfigError(
      'Invalid configuration:\n  SESSION_SECRET: required in live mode (MESSAGING_API_KEY is set); use 32+ random characters',
    );
  }
  if (e.DATABASE_OWNER_URL && !e.DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  DATABASE_OWNER_URL: needs DATABASE_URL (the request role) beside it; unset, the embedded database makes both roles',
    );
  }
  const siteUrl = (e.NEXT_PUBLIC_SITE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  if (e.OIDC_ISSUER && (!e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET)) {
    throw new ConfigError(
      `Invalid configuration:\n  ${e.OIDC_CLIENT_ID ? 'OIDC_CLIENT_SECRET' : 'OIDC_CLIENT_ID'}: required when OIDC_ISSUER is set (the client registered with the provider)`,
    );
  }
  const oidc: TOidcConfig | null = e.OIDC_ISSUER
    ? {
        issuer: e.OIDC_ISSUER,
        clientId: e.OIDC_CLIENT_ID!,
        clientSecret: e.OIDC_CLIENT_SECRET!,
        allowedDomains: e.OIDC_ALLOWED_DOMAINS ?? [],
        createAccounts: e.OIDC_CREATE_ACCOUNTS ?? null,
        redirectUri: `${siteUrl}/api/auth/oidc/callback`,
      }
    : null;
  return {
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    databaseOwnerUrl: e.DATABASE_OWNER_URL,
    dataDir: path.resolve(e.DATA_DIR),
    spaDir: e.SPA_DIR ? path.resolve(e.SPA_DIR) : undefined,
    signingKeyFile: path.resolve(e.SIGNING_KEY_FILE ?? `${e.DATA_DIR.replace(/[\\/]+$/, '')}-signing-key.pem`),
    signingKeyCreate: !e.SIGNING_KEY_FILE,
    backupKey: e.BACKUP_KEY,
    sessionSecret: e.SESSION_SECRET ?? DEMO_SESSION_SECRET,
    siteUrl,
    secureCookies: siteUrl.startsWith('https://'),
    firmPhone: e.FIRM_PHONE,
    ...findDefaultCountry(e.DEFAULT_COUNTRY, e.FIRM_PHONE),
    firmName: e.FIRM_NAME,
    firmTimeZone: e.FIRM_TIME_ZONE,
    searchLanguage: e.SEARCH_LANGUAGE,
    replyTargetMinutes: e.REPLY_TARGET_MINUTES,
    retentionYears: e.RETENTION_YEARS,
    readReceipts: e.READ_RECEIPTS,
    mode,
    messaging: {
      apiKey: e.MESSAGING_API_KEY,
      providerUrl: e.MESSAGING_PROVIDER_URL.replace(/\/+$/, ''),
      profilePath: e.MESSAGING_PROFILE_PATH,
      templatesPath: e.MESSAGING_TEMPLATES_PATH,
      timeoutMs: Math.round(e.MESSAGING_TIMEOUT_SECONDS * 1000),
      webhookSecret: e.MESSAGING_WEBHOOK_SECRET,
      verifyToken: e.MESSAGING_WEBHOOK_VERIFY_TOKEN,
      allowUnauthenticatedWebhooks: e.ALLOW_UNAUTHENTICATED_WEBHOOKS,
    },
    trustProxy: e.TRUST_PROXY,
    oidc,
    logLevel: e.LOG_LEVEL,
  };
}

/**
 * The country national numbers are read in. FIRM_PHONE in a range the phone library cannot place
 * (+44 7700 900xxx is reserved for drama) still has a calling code: its main country is the one
 * meant (the library's metadata lists it first), rather than no country at all.
 */
function findDefaultCountry(setting: CountryCode | undefined, firmPhone: string): Pick<TConfig, 'defaultCountry' | 'defaultCountryFrom'> {
  if (setting) return { defaultCountry: setting, defaultCountryFrom: 'DEFAULT_COUNTRY' };
  const parsed = parsePhoneNumberFromString(firmPhone);
  if (parsed?.country) return { defaultCountry: parsed.country, defaultCountryFrom: 'FIRM_PHONE' };
  const main = parsed ? metadata.country_calling_codes[parsed.countryCallingCode]?.[0] : undefined;
  return main ? { defaultCountry: main, defaultCountryFrom: 'calling code' } : { defaultCountry: undefined, defaultCountryFrom: null };
}
