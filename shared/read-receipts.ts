// Who opening a conversation shows the client their messages were read (server/messaging/README.md
// "Read receipts"): nobody, its assignee (anyone while it has none), or whoever opens it.
export const READ_RECEIPT_MODES = ['off', 'assignee', 'anyone'] as const;
export type TReadReceiptMode = (typeof READ_RECEIPT_MODES)[number];
