import type { TAuditAction } from '../../../../../shared/audit/audit-details';
import type { TDescribers } from './audit-sentence';
import { CONVERSATION_SENTENCES } from './conversation-sentences';
import { DATABASE_SENTENCES } from './database-sentences';
import { EXPORT_SENTENCES } from './export-sentences';
import { FIRM_NUMBER_SENTENCES } from './firm-number-sentences';
import { IMPORT_SENTENCES } from './import-sentences';
import { MFA_SENTENCES } from './mfa-sentences';
import { NUMBER_SENTENCES } from './number-sentences';
import { PASSKEY_SENTENCES } from './passkey-sentences';
import { PEOPLE_SENTENCES } from './people-sentences';
import { RECORDS_SENTENCES } from './records-sentences';
import { SCHEDULED_SENTENCES } from './scheduled-sentences';
import { SETTINGS_SENTENCES } from './settings-sentences';
import { SIGN_IN_SENTENCES } from './sign-in-sentences';
import { WORDING_SENTENCES } from './wording-sentences';

/** Every action's sentence: an action added to the trail without one does not compile. */
export const AUDIT_SENTENCES: TDescribers<TAuditAction> = {
  ...SIGN_IN_SENTENCES,
  ...NUMBER_SENTENCES,
  ...EXPORT_SENTENCES,
  ...SETTINGS_SENTENCES,
  ...PEOPLE_SENTENCES,
  ...CONVERSATION_SENTENCES,
  ...RECORDS_SENTENCES,
  ...SCHEDULED_SENTENCES,
  ...DATABASE_SENTENCES,
  ...MFA_SENTENCES,
  ...PASSKEY_SENTENCES,
  ...WORDING_SENTENCES,
  ...FIRM_NUMBER_SENTENCES,
  ...IMPORT_SENTENCES,
};
