import { z } from 'zod';

export const COMMUNICATION_TYPES = ['chat', 'note', 'call', 'email'] as const;
export const ZCommunicationType = z.enum(COMMUNICATION_TYPES);
export type TCommunicationType = z.infer<typeof ZCommunicationType>;

export const ZDirection = z.enum(['inbound', 'outbound']);
export type TDirection = z.infer<typeof ZDirection>;

export const CHAT_STATUSES = ['pending', 'sent', 'delivered', 'read', 'failed'] as const;
export const ZChatStatus = z.enum(CHAT_STATUSES);
export type TChatStatus = z.infer<typeof ZChatStatus>;


export type TReceiptStatus = 'sent' | 'delivered' | 'read' | 'failed';
/** When each receipt came (provider time), and for `failed` the provider's code and details. */
export type TReceiptHistory = Partial<Record<TReceiptStatus, { at: string | null; code?: number | null; details?: string | null }>>;

export const USER_ROLES = ['director', 'staff'] as const;
export const ZUserRole = z.enum(USER_ROLES);
export type TUserRole = z.infer<typeof ZUserRole>;

export type TCommunication = {
  id: number;
  type: TCommunicationType;
  direction: TDirection | null;
  subject: string | null;
  body: string;
  status: TChatStatus | null;
  error: string | null;
  clientId: number | null;
  caseId: number | null;
  peerPhone: string | null;
  /** `truncated`: an inbound text longer than is stored (its full length and sha256); `unlinked_case_id`: the case a record left when its number was unlinked. */
  metadata: { chat_msg_id?: string; contact_name?: string; retry_of?: number; truncated?: { length: number; sha256: string }; unlinked_case_id?: number;
    /** An approved template sent: its name, language and the values filled in. */
    template?: { name: string; language: string; params: string[] };
  };
  providerTimestamp: Date | null;
  createdAt: Date;
};
