import { threadPath, type TOutputs } from '../../lib/trpc';

export type TNotification = TOutputs['notifications']['list']['items'][number];

const KIND_LABEL: Record<TNotification['kind'], string> = {
  assigned: 'Assigned',
  mention: 'Mentioned',
  message: 'New message',
  overdue: 'Overdue',
  scheduled_not_sent: 'Not sent',
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
      return describeAssignment(n, who, myId);
    case 'mention':
      return `${who ?? 'Someone'} mentioned you in a note on ${n.threadName}`;
    case 'message':
      return `New message from ${n.threadName} in your conversation`;
    case 'overdue':
      return `${n.threadName} has waited past the reply target`;
    case 'scheduled_not_sent':
      return describeNotSent(n);
  }
}

/**
 * A send of the reader's that could not go at its time (server/messaging/README.md "Scheduled sends"), with why: the
 * firm's own sentence (the window closed, an opt-out), never the message's words.
 */
function describeNotSent(n: TNotification): string {
  const reason = n.scheduledSend?.reason;
  const sentence = `Your scheduled message to ${n.threadName} was not sent`;
  return reason ? `${sentence}: ${reason}` : `${sentence}.`;
}

/**
 * A change of assignee, as its reader is concerned: given to them (by someone, or by the system
 * because they are the client's responsible person), or taken from them — by the new assignee
 * ("took … from you") or by someone giving it to another. `who`: the actor, as the reader calls them.
 * The thread's name comes as the inbox shows it ("~Name" for a number's profile name).
 */
function describeAssignment(n: TNotification, who: string | null, myId: number | undefined): string {
  const thread = n.threadName;
  if (n.assignee?.id === myId)
    return who ? `${who} assigned ${thread} to you` : `${thread} was assigned to you (you are responsible for this client)`;
  if (!n.assignee) return who ? `${who} unassigned ${thread}` : `${thread} is no longer assigned`;
  if (!who) return `${thread} was assigned to ${n.assignee.name}`;
  return n.actor?.id === n.assignee.id ? `${who} took ${thread} from you` : `${who} gave ${thread} to ${n.assignee.name}`;
}

/** The conversation the notification is about; at the message or note itself when it names one. */
export function notificationPath(n: TNotification): string {
  const ref = n.threadRef;
  const path =
    'clientId' in ref ? threadPath({ clientId: ref.clientId, peerPhone: null }) : threadPath({ clientId: null, peerPhone: ref.phone });
  return n.communicationId !== null ? `${path}?message=${n.communicationId}` : path;
}
