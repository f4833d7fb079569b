import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { useToast } from '../../ui/toasts';

type TRole = TOutputs['users']['list'][number]['role'];
type TInvitation = TOutputs['users']['invitations'][number];

const ROLE_LABEL: Record<TRole, string> = { director: 'Director', staff: 'Staff' };

/**
 * A director invites someone: the answer is a one-time link (72 hours) to pass on. The person sets
 * their own password there, so nobody else ever knows it; no email is sent.
 */
export function InvitePersonForm() {
  const utils = trpc.useUtils();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<TRole>('staff');
  const [invited, setInvited] = useState<{ name: string; email: string; url: string; expiresAt: Date } | null>(null);
  const invite = trpc.users.invite.useMutation({
    onSuccess: async (result) => {
      setInvited({ name: result.invitation.name, email: result.invitation.email, url: result.inviteUrl, expiresAt: result.expiresAt });
      setName('');
      setEmail('');
      setRole('staff');
      await utils.users.invitations.invalidate();
    },
  });
  const { formRef, ...errors } = useFormErrors(invite.error, ['name', 'email', 'role']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setInvited(null);
    invite.mutate({ name, email, role });
  };
  return (
    <form className="add-person" onSubmit={submit} aria-labelledby="invite-person-title" noValidate ref={formRef}>
      <h3 id="invite-person-title">Invite a person</h3>
      <div className="add-person-fields">
        <label className="field">
          <span>Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" {...errors.field('name')} />
          {errors.message('name')}
        </label>
        <label className="field">
          <span>Email</span>
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" {...errors.field('email')} />
          {errors.message('email')}
        </label>
        <label className="field">
          <span>Role</span>
          <select value={role} onChange={(e) => setRole(e.target.value as TRole)} {...errors.field('role')}>
            <option value="staff">{ROLE_LABEL.staff}</option>
            <option value="director">{ROLE_LABEL.director}</option>
          </select>
          {errors.message('role')}
        </label>
      </div>
      <p className="muted small">No email is sent: you get a link to pass on. The person sets their own password there.</p>
      <button type="submit" className="button primary" disabled={invite.isPending}>
        {invite.isPending ? 'Inviting…' : 'Invite'}
      </button>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      {invited && <InviteLink invited={invited} />}
    </form>
  );
}

function InviteLink({ invited }: { invited: { name: string; email: string; url: string; expiresAt: Date } }) {
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(invited.url);
      toast('success', 'Link copied.');
    } catch {
      toast('error', 'Could not copy: select the link and copy it yourself.');
    }
  };
  return (
    <div className="setup-notice tone-ok added-person" role="status" ref={(el) => el?.scrollIntoView({ block: 'nearest' })}>
      <strong>
        {invited.name} ({invited.email}) is invited.
      </strong>
      <span>Send them this link. It works once, until {formatDateTime(invited.expiresAt)}:</span>
      <input className="generated-password" readOnly aria-label="Invitation link" value={invited.url} onFocus={(e) => e.target.select()} />
      <button type="button" className="button small" onClick={() => void copy()}>
        Copy link
      </button>
    </div>
  );
}

/** Invitations not used yet: who, until when, and a way to withdraw one (its link stops working). */
export function PendingInvitations() {
  const invitations = trpc.users.invitations.useQuery();
  if (!invitations.data?.length) return null;
  return (
    <>
      <h3 className="pending-invitations-title">Pending invitations</h3>
      <ul className="people-list" aria-label="Pending invitations">
        {invitations.data.map((invitation) => (
          <PendingInvitation key={invitation.id} invitation={invitation} />
        ))}
      </ul>
    </>
  );
}

function PendingInvitation({ invitation }: { invitation: TInvitation }) {
  const utils = trpc.useUtils();
  const revoke = trpc.users.revokeInvite.useMutation({ onSuccess: () => utils.users.invitations.invalidate() });
  return (
    <li className="person" data-status="invited">
      <div className="person-main">
        <span className="person-name">{invitation.name}</span>
        <span className="person-email">{invitation.email}</span>
      </div>
      <div className="person-controls">
        <span className="person-role">{ROLE_LABEL[invitation.role]}</span>
        <span className="person-status deactivated">Invited · link works until {formatDateTime(invitation.expiresAt)}</span>
        <button
          type="button"
          className="button small ghost"
          aria-label={`Withdraw the invitation of ${invitation.name}`}
          disabled={revoke.isPending}
          onClick={() => revoke.mutate({ id: invitation.id })}
        >
          {revoke.isPending ? 'Withdrawing…' : 'Withdraw'}
        </button>
      </div>
      {revoke.error && (
        <p className="form-error person-error" role="alert">
          {revoke.error.message}
        </p>
      )}
    </li>
  );
}
