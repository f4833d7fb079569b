import { useId, useState } from 'react';
import { showInvisibleCharacters as visible } from '../../../../shared/visible-text';
import { trpc } from '../../lib/trpc';
import { useDebounced } from '../../lib/use-debounced';
import { SUBJECT_PATTERN } from './audit-filters';

const MAX_CLIENTS = 5;

export type TChosenSubject = { subject: string; name: string };

/**
 * "About": one client or case the trail is narrowed to. A person types a client's name (or number);
 * the matching clients they may see and those clients' cases are offered as buttons. `client:12`
 * typed as it is stored works too (a subject copied from elsewhere).
 */
export function AuditSubjectFilter({
  chosen,
  onChoose,
}: {
  chosen: TChosenSubject | null;
  onChoose: (choice: TChosenSubject | null) => void;
}) {
  const [typed, setTyped] = useState('');
  const search = useDebounced(typed.trim(), 250);
  const id = useId();
  const asKey = SUBJECT_PATTERN.test(search) ? search : null;
  const clients = trpc.clients.list.useQuery({ search }, { enabled: search.length >= 2 && !asKey });
  const matched = (clients.data ?? []).slice(0, MAX_CLIENTS);
  const cases = trpc.useQueries((t) => matched.map((c) => t.cases.listForClient({ clientId: c.id })));
  const choose = (choice: TChosenSubject) => {
    onChoose(choice);
    setTyped('');
  };

  if (chosen) {
    return (
      <div className="compact-field audit-about">
        <span id={`${id}-label`}>About</span>
        <span className="audit-chosen" aria-labelledby={`${id}-label`}>
          {visible(chosen.name)}
        </span>
        <button
          type="button"
          className="button small ghost"
          onClick={() => onChoose(null)}
          aria-label={`Clear About: ${visible(chosen.name)}`}
        >
          Clear
        </button>
      </div>
    );
  }

  const offers: TChosenSubject[] = asKey
    ? [{ subject: asKey, name: asKey }]
    : matched.flatMap((client, index) => [
        { subject: `client:${client.id}`, name: client.name },
        ...(cases[index]?.data ?? []).map((k) => ({ subject: `case:${k.id}`, name: `${k.reference} · ${k.title}` })),
      ]);
  const searched = search.length >= 2 && !asKey && clients.isSuccess;

  return (
    <div className="audit-about">
      <label className="compact-field">
        <span>About</span>
        <input
          type="search"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          placeholder="A client’s name or number"
          aria-describedby={`${id}-hint`}
          autoComplete="off"
        />
      </label>
      <span id={`${id}-hint`} className="visually-hidden">
        Matching clients and their cases are listed after the field.
      </span>
      {offers.length > 0 && (
        <ul className="audit-offers" aria-label="Matching clients and cases">
          {offers.map((offer) => (
            <li key={offer.subject}>
              <button type="button" className="button small ghost" onClick={() => choose(offer)}>
                {offer.subject.startsWith('case:') ? 'Case ' : ''}
                {visible(offer.name)}
              </button>
            </li>
          ))}
        </ul>
      )}
      {searched && offers.length === 0 && (
        <p className="muted audit-offers-none" role="status">
          No client you may see matches “{visible(search)}”.
        </p>
      )}
    </div>
  );
}
