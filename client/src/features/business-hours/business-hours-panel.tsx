import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../../lib/format';
import { useMinuteClock } from '../../lib/use-minute-clock';
import { trpc } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { AUTO_REPLY_LIMIT, describeOpenState, describeWeek, formatCalendarDate, openStateAt } from './business-week';
import { ClosedDatesField } from './closed-dates-field';
import { draftOf, inputOf, type TDraft, type TSavedHours } from './hours-draft';
import { TimeZoneField } from './time-zone-field';
import { WeekField } from './week-field';

const FIELDS = ['timeZone', 'week', 'closedDates', 'autoReply'] as const;

/**
 * Settings › Business hours (server/messaging/README.md "Business hours"): when the firm is open, and the reply a client
 * who writes outside those hours gets. Directors edit them; staff read them.
 */
export function BusinessHoursPanel({ role }: { role: 'director' | 'staff' }) {
  // Read again each minute: whether the firm is open now is the server's word, and it moves on.
  const hours = trpc.settings.businessHours.useQuery(undefined, { refetchInterval: 60_000 });
  return (
    <section className="card business-hours" aria-labelledby="business-hours-title">
      <h2 id="business-hours-title">Business hours</h2>
      <p className="muted">
        Outside these hours a client who writes gets the automatic reply below, once in 12 hours at most. A day not ticked is closed, and so
        is every closed date.
      </p>
      <QueryStatus query={hours} loading="Loading the business hours…" padded={false}>
        {(saved) => (
          <>
            <OpenNowLine saved={saved} editing={role === 'director'} />
            {saved.updatedAt && (
              <p className="muted small hours-changed">
                Last changed {formatDateTime(saved.updatedAt)}
                {saved.updatedBy ? ` by ${saved.updatedBy.name}` : ''}.
              </p>
            )}
            {role === 'director' ? (
              // A new version from the server (saved here or elsewhere) starts the form afresh from it.
              <HoursForm key={saved.updatedAt?.toISOString() ?? 'never'} saved={saved} />
            ) : (
              <HoursSummary saved={saved} />
            )}
          </>
        )}
      </QueryStatus>
    </section>
  );
}

/**
 * Whether the firm is open now: the server's answer (it decides when the automatic reply goes), with
 * until when, or when it opens next, worked out here from the same hours.
 */
function OpenNowLine({ saved, editing }: { saved: TSavedHours; editing: boolean }) {
  const now = useMinuteClock();
  if (!saved.hoursSet || saved.openNow === null)
    return (
      <p className="open-now tone-info" role="status" data-open="unset">
        No business hours are saved yet, so no automatic reply is sent{editing ? ': the week below is a suggestion until you save it' : ''}.
      </p>
    );
  const state = openStateAt(saved, new Date(now));
  // The browser's clock or zone data may disagree for a minute around a change: the server's word stands.
  const sentence = state.open === saved.openNow ? describeOpenState(state, saved.timeZone) : saved.openNow ? 'Open now.' : 'Closed now.';
  return (
    <p className={`open-now ${saved.openNow ? 'tone-ok' : 'tone-warn'}`} role="status" data-open={saved.openNow}>
      {sentence}
      {!saved.openNow && (saved.autoReply ? ' A client who writes now gets the automatic reply.' : ' No automatic reply is set.')}
    </p>
  );
}

/** The hours as staff see them: read only. */
function HoursSummary({ saved }: { saved: TSavedHours }) {
  if (!saved.hoursSet) return <p className="muted small">Only directors can set the business hours.</p>;
  return (
    <>
      <dl className="hours-summary">
        {describeWeek(saved.week).map((line) => (
          <div key={line.day}>
            <dt>{line.day}</dt>
            <dd>{line.hours}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small">
        Time zone {saved.timeZone}.{' '}
        {saved.closedDates.length ? `Closed on ${saved.closedDates.map(formatCalendarDate).join(', ')}.` : 'No closed dates.'}
      </p>
      <h3 className="hours-subtitle">Automatic reply</h3>
      {saved.autoReply ? <p className="template-preview">{saved.autoReply}</p> : <p className="muted">None: nothing is sent.</p>}
      <p className="muted small">Only directors can change the business hours.</p>
    </>
  );
}

function HoursForm({ saved }: { saved: TSavedHours }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [draft, setDraft] = useState<TDraft>(() => draftOf(saved));
  const save = trpc.settings.setBusinessHours.useMutation({
    onSuccess: async () => {
      toast('success', 'Business hours saved.');
      await utils.settings.businessHours.invalidate();
    },
  });
  const { formRef, ...errors } = useFormErrors(save.error, FIELDS);
  const change = (patch: Partial<TDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(inputOf(draft));
  };
  // Counted as the server counts it: without the spaces at either end.
  const length = draft.autoReply.trim().length;
  const over = length - AUTO_REPLY_LIMIT;
  return (
    <form className="hours-form" onSubmit={submit} noValidate ref={formRef} aria-label="Business hours">
      <TimeZoneField
        value={draft.timeZone}
        onChange={(timeZone) => change({ timeZone })}
        input={errors.field('timeZone')}
        message={errors.message('timeZone')}
      />
      <WeekField days={draft.days} onChange={(days) => change({ days })} field={errors.field('week')} message={errors.message('week')} />
      <ClosedDatesField
        dates={draft.closedDates}
        onChange={(closedDates) => change({ closedDates })}
        field={errors.field('closedDates')}
        message={errors.message('closedDates')}
      />
      <div className="field">
        <label htmlFor={errors.inputId('autoReply')}>Automatic reply outside business hours</label>
        <small className="field-hint" id={`${errors.inputId('autoReply')}-hint`}>
          Sent to a client who writes while the firm is closed. Leave it empty to send nothing.
        </small>
        <textarea
          rows={4}
          value={draft.autoReply}
          onChange={(e) => change({ autoReply: e.target.value })}
          placeholder="For example: Thank you for your message. Our office is closed; we will reply when we open."
          {...errors.field('autoReply')}
          aria-describedby={[
            `${errors.inputId('autoReply')}-hint`,
            `${errors.inputId('autoReply')}-count`,
            errors.field('autoReply')['aria-describedby'],
          ]
            .filter(Boolean)
            .join(' ')}
        />
        <small className={`reply-count${over > 0 ? ' over' : ''}`} id={`${errors.inputId('autoReply')}-count`}>
          {over > 0
            ? `${over.toLocaleString('en-GB')} ${over === 1 ? 'character' : 'characters'} over the limit of ${AUTO_REPLY_LIMIT.toLocaleString('en-GB')}`
            : `${length.toLocaleString('en-GB')} / ${AUTO_REPLY_LIMIT.toLocaleString('en-GB')} characters`}
        </small>
        {errors.message('autoReply')}
      </div>
      <div className="button-row">
        <button type="submit" className="button primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save business hours'}
        </button>
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
    </form>
  );
}
