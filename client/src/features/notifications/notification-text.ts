import { threadPath, type TOutputs } from '../../lib/trpc';

export type TNotification = TOutputs['notifications']['list']['items'][number];

const KIND_LABEL: Record<TNotification['kind'], string> = {
  assigned: 'Assigned',
  mention: 'Mentioned',
  message: 'New message',
  overdue: 'Overdue',
};

export function kindLabel(notification: TNotification): string {
  return KIND_LABEL[notification.kind];
}

/**
 * What happened, in a sentence that names people and the conversation — never a message's words
 * (the same sentence goes into a desktop notification, which may show on a locked screen).
 */
export function describeNotification(n: TNotification, myId: number | undefined): string {
  const who = n.actor ? (n.actor.id === myId ? 'You' : n.actor.name) : null;
  switch (n.kind) {
    case 'assigned':
      if (n.assignee?.id === myId) return who ? `${who} assigned ${n.threadName} to you` : `${n.threadName} was assigned to you`;
      if (!n.assignee) return who ? `${who} unassigned ${n.threadName}` : `${n.threadName} is no longer assigned`;
      return who ? `${who} assigned ${n.threadName} to ${n.assignee.name}` : `${n.threadName} was assigned to ${n.assignee.name}`;
    case 'mention':
      return `${who ?? 'Someone'} mentioned you in a note on ${n.threadName}`;
    case 'message':
      return `New message from ${n.threadName} in your conversation`;
    case 'overdue':
      return `${n.threadName} has waited past the reply target`;
  }
}

/** The conversation the notification is about; at the message or note itself when it names one. */
export function notificationPath(n: TNotification): string {
  const ref = n.threadRef;
  const path =
    'clientId' in ref ? threadPath({ clientId: ref.clientId, peerPhone: null }) : threadPath({ clientId: null, peerPhone: ref.phone });
  return n.communicationId !== null ? `${path}?message=${n.communicationId}` : path;
}
