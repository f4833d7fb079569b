import { useState, type FormEvent } from 'react';
import { REQUIRE_MFA, type TRequireMfa, type TSecurityPolicy } from '../../../../shared/security-policy';
import { trpc, type TOutputs } from '../../lib/trpc';
import { useFormErrors } from '../../ui/field-error';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { SaveFooter } from './save-footer';

const FIELDS = ['requireMfa', 'sessionIdleMinutes', 'sessionMaxHours'] as const;

const REQUIRE_LABEL: Record<TRequireMfa, string> = {
  none: 'Nobody (each person chooses)',
  directors: 'Directors',
  everyone: 'Everyone',
};

/** Settings › Sign-in policy: who must use two-step sign-in, and how long sessions last (directors change it). */
export function SignInPolicyPanel({ isDirector }: { isDirector: boolean }) {
  const policy = trpc.settings.security.useQuery();
  return (
    <section className="card sign-in-policy" aria-labelledby="sign-in-policy-title">
      <h2 id="sign-in-policy-title">Sign-in policy</h2>
      <QueryStatus query={policy} loading="Loading the sign-in policy…" padded={false}>
        {(saved) => (isDirector ? <PolicyForm saved={saved} /> : <PolicySummary saved={saved} />)}
      </QueryStatus>
    </section>
  );
}

type TSaved = TOutputs['settings']['security'];

function PolicySummary({ saved }: { saved: TSaved }) {
  return (
    <>
      <p>
        Two-step sign-in is required of: <strong>{REQUIRE_LABEL[saved.requireMfa]}</strong>. A session ends after {saved.sessionIdleMinutes}{' '}
        minutes without use, and after {saved.sessionMaxHours} hours at most.
      </p>
      <p className="muted small">Only directors can change the sign-in policy.</p>
    </>
  );
}

function PolicyForm({ saved }: { saved: TSaved }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [draft, setDraft] = useState<TSecurityPolicy>(() => ({
    requireMfa: saved.requireMfa,
    sessionIdleMinutes: saved.sessionIdleMinutes,
    sessionMaxHours: saved.sessionMaxHours,
  }));
  const save = trpc.settings.setSecurity.useMutation({
    onSuccess: async () => {
      toast('success', 'Sign-in policy saved.');
      await utils.settings.security.invalidate();
    },
  });
  const { formRef, ...errors } = useFormErrors(save.error, FIELDS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(draft);
  };
  const number = (field: 'sessionIdleMinutes' | 'sessionMaxHours', label: string, hint: string) => (
    <div className="field">
      <label htmlFor={errors.inputId(field)}>{label}</label>
      <small className="field-hint">{hint}</small>
      <input
        type="number"
        inputMode="numeric"
        min={1}
        value={Number.isNaN(draft[field]) ? '' : draft[field]}
        onChange={(e) => setDraft((d) => ({ ...d, [field]: e.target.valueAsNumber }))}
        {...errors.field(field)}
      />
      {errors.message(field)}
    </div>
  );
  return (
    <form onSubmit={submit} noValidate ref={formRef} aria-label="Sign-in policy">
      <fieldset className="field">
        <legend>Two-step sign-in is required of</legend>
        {REQUIRE_MFA.map((value) => (
          <label key={value} className="radio-line">
            <input
              type="radio"
              name="requireMfa"
              value={value}
              checked={draft.requireMfa === value}
              onChange={() => setDraft((d) => ({ ...d, requireMfa: value }))}
            />
            {REQUIRE_LABEL[value]}
          </label>
        ))}
        <small className="field-hint">
          A person it covers who has no authenticator app or passkey yet is asked to set one up before anything else.
        </small>
        {errors.message('requireMfa')}
      </fieldset>
      {number('sessionIdleMinutes', 'End a session after this many minutes without use', '5 to 10,080 (a week).')}
      {number('sessionMaxHours', 'End every session after this many hours', '1 to 168 (a week), however busy.')}
      <SaveFooter pending={save.isPending} label="Save policy" errors={errors} saved={saved} />
    </form>
  );
}
