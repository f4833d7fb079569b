import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ConfirmButton } from '../../ui/confirm-button';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { OptOutBanner } from '../conversation';
import { PhoneNumber } from '../../ui/phone-number';
import { olderOf, TIMELINE_PAGE } from '../../lib/older-pages';
import { useToast } from '../../ui/toasts';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { AccessGone, AccessPanel, goneOf, LockMark, retryUnlessNotFound } from '../access';
import { ResponsiblePerson } from '../ownership';
import { ErasedClientPanel, erasedText, HoldBanner } from '../records';
import { PhoneImportsCard } from '../imports';
import { DocumentsList } from './documents-list';
import { ExportChat } from './export-chat';
import { Timeline } from './timeline';

export function ClientPage({ clientId }: { clientId: number }) {
  // NOT_FOUND is not asked again: a person walled from the client sees that at once.
  const client = trpc.clients.get.useQuery({ clientId }, { retry: retryUnlessNotFound });
  const cases = trpc.cases.listForClient.useQuery({ clientId });
  const timeline = trpc.timeline.client.useInfiniteQuery(
    { clientId, limit: TIMELINE_PAGE },
    { getNextPageParam: (page) => page.nextCursor ?? undefined },
  );
  const isDirector = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data?.role === 'director';
  // Not found, or walled off while open (server/access/README.md "Ethical walls"): nothing of the file stays on screen.
  const gone = goneOf(client);
  if (gone)
    return (
      <div className="page">
        <AccessGone gone={gone} what="client" back={{ href: '/clients', label: 'Back to clients' }} />
      </div>
    );
  return (
    <QueryStatus query={client} loading="Loading client…" padded={false}>
      {(found) => {
        const erased = found.erasedAt !== null;
        return (
          <div className="page">
            <nav className="breadcrumbs" aria-label="Breadcrumb">
              <Link href="/clients">Clients</Link> / <span>{found.name}</span>
            </nav>
            <div className="page-header">
              <div>
                <h1 className="title-with-mark">
                  {found.name}
                  {found.restricted && <LockMark />}
                </h1>
                {!erased && (
                  <>
                    <p className="muted">
                      <PhoneNumber value={found.phone} />
                      {found.email ? ` · ${found.email}` : ''}
                    </p>
                    <ResponsiblePerson clientId={clientId} clientName={found.name} responsible={found.responsible} />
                  </>
                )}
              </div>
              {!erased && (
                <Link href={`/inbox/client/${clientId}`} className="button primary">
                  Message
                </Link>
              )}
            </div>
            {/* Erased is final and quiet (server/records/README.md "Records"): how, the certificate, and nothing to change. */}
            {found.erasedAt && <ErasedClientPanel erasedAt={found.erasedAt} erasure={found.erasure} />}
            {!erased && <OptOutBanner client={found} />}
            {!erased && <HoldBanner subject={{ clientId }} notice={found.hold} />}
            {/* On a phone the side panels come after the whole timeline: a way straight to each. */}
            <nav className="page-jump" aria-label="On this page">
              <a href="#cases-title">Cases</a>
              {isDirector && !erased && <a href="#access-title">Access</a>}
              {!erased && <a href="#numbers-title">Chat numbers</a>}
              <a href="#documents-title">Documents</a>
              <a href="#export-title">Export</a>
              {!erased && <a href="#imports-title">History from the phone</a>}
              {!erased && <a href="#new-case-title">Open a case</a>}
            </nav>
            <div className="two-column">
              <div className="stack">
                <section className="card" aria-labelledby="timeline-title">
                  <h2 id="timeline-title">Timeline</h2>
                  <QueryStatus query={timeline} loading="Loading timeline…" padded={false}>
                    {({ pages }) => (
                      <Timeline
                        items={pages.flatMap((page) => page.items)}
                        older={olderOf(timeline)}
                        filing={erased ? undefined : { clientId, cases: cases.data ?? [] }}
                        erasedBy={found.erasure?.by}
                      />
                    )}
                  </QueryStatus>
                </section>
                <section className="card" aria-labelledby="documents-title">
                  <h2 id="documents-title">Documents</h2>
                  <DocumentsList where={{ clientId }} />
                </section>
              </div>
              <aside className="stack">
                <section className="card" aria-labelledby="cases-title">
                  <h2 id="cases-title">Cases</h2>
                  <QueryStatus query={cases} loading="Loading cases…" padded={false}>
                    {(list) =>
                      list.length ? (
                        <ul className="row-list compact">
                          {list.map((c) => (
                            <li key={c.id}>
                              <Link href={`/cases/${c.id}`} className="row-link">
                                <span className="row-main">
                                  <span className="row-title">
                                    {c.reference}
                                    {c.restricted && <LockMark />}
                                  </span>
                                  <span className="row-sub">
                                    {c.erasedAt ? erasedText(c.erasedAt, found.erasure?.by) : c.title}
                                    {c.status === 'closed' && !c.erasedAt && ' · closed'}
                                  </span>
                                </span>
                              </Link>
                            </li>
                          ))}
                        </ul>
                      ) : (
                        <p className="empty">No cases yet.</p>
                      )
                    }
                  </QueryStatus>
                </section>
                {!erased && <AccessPanel subject={{ clientId }} />}
                {!erased && <ClientNumbers clientId={clientId} numbers={found.numbers} />}
                <section className="card" aria-labelledby="export-title">
                  <h2 id="export-title">Export the chat</h2>
                  <ExportChat scope="client" id={clientId} />
                </section>
                {!erased && <PhoneImportsCard clientId={clientId} clientName={found.name} cases={cases.data ?? []} />}
                {!erased && <CreateCaseForm clientId={clientId} />}
              </aside>
            </div>
          </div>
        );
      }}
    </QueryStatus>
  );
}

type TNumber = { digits: string; primary: boolean; linked: boolean; addedAt: Date; addedBy: { id: number; name: string } | null };

/** The client's chat numbers: messages from any of them file here; replies go to the one that wrote. */
function ClientNumbers({ clientId, numbers }: { clientId: number; numbers: TNumber[] }) {
  const [phone, setPhone] = useState('');
  const utils = trpc.useUtils();
  const toast = useToast();
  const refresh = () => {
    void utils.clients.get.invalidate({ clientId });
    void utils.clients.list.invalidate();
  };
  const add = trpc.clients.addNumber.useMutation({
    onSuccess: () => {
      setPhone('');
      refresh();
    },
  });
  const remove = trpc.clients.removeNumber.useMutation({ onSuccess: refresh, onError: (error) => toast('error', error.message) });
  const conflict = add.error?.data?.code === 'CONFLICT';
  const { formRef, ...errors } = useFormErrors(add.error, ['phone'], { warning: conflict });
  const submit = (event: FormEvent, confirm = false) => {
    event.preventDefault();
    add.mutate({ clientId, phone, confirm });
  };
  return (
    <section className="card" aria-labelledby="numbers-title">
      <h2 id="numbers-title">Chat numbers</h2>
      <ul className="number-list">
        {numbers.map((n) => (
          <li key={n.digits}>
            <span>
              <PhoneNumber value={n.digits} /> {n.primary && <span className="badge">primary</span>}
              {n.addedBy && <span className="muted"> added by {n.addedBy.name}</span>}
            </span>
            {numbers.length > 1 && (
              <ConfirmButton
                label="Remove"
                ariaLabel={`Remove ${n.digits}`}
                className="button small ghost"
                question={`Remove${n.primary ? ' the primary number' : ''}?`}
                confirmLabel="Remove"
                pending={remove.isPending}
                onConfirm={() => remove.mutate({ clientId, phone: n.digits })}
              />
            )}
          </li>
        ))}
      </ul>
      {/* noValidate: the server decides what a possible number is, and says so beside the field. */}
      <form className="inline-form" onSubmit={submit} aria-label="Add a number" noValidate ref={formRef}>
        <div className="field">
          <label htmlFor={errors.inputId('phone')}>Add a number</label>
          <input
            inputMode="tel"
            autoComplete="off"
            placeholder="+44 7700 900000 or 07700 900000"
            value={phone}
            onChange={(e) => {
              setPhone(e.target.value);
              // A warning (and its "anyway") belongs to the number it was shown for.
              if (conflict) add.reset();
            }}
            required
            {...errors.field('phone')}
          />
          {errors.message('phone')}
        </div>
        <FormSummary id={errors.summaryId} summary={errors.summary} />
        {conflict ? (
          <button type="button" className="button primary" disabled={add.isPending} onClick={(e) => submit(e, true)}>
            Add anyway
          </button>
        ) : (
          <button type="submit" className="button ghost" disabled={add.isPending}>
            Add number
          </button>
        )}
      </form>
    </section>
  );
}

function CreateCaseForm({ clientId }: { clientId: number }) {
  const [reference, setReference] = useState('');
  const [title, setTitle] = useState('');
  const utils = trpc.useUtils();
  const create = trpc.cases.create.useMutation({
    onSuccess: () => {
      setReference('');
      setTitle('');
      void utils.cases.listForClient.invalidate({ clientId });
    },
  });
  const { formRef, ...errors } = useFormErrors(create.error, ['reference', 'title']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ clientId, reference, title });
  };
  return (
    <form className="card form-card" onSubmit={submit} aria-labelledby="new-case-title" noValidate ref={formRef}>
      <h2 id="new-case-title">Open a case</h2>
      <div className="field">
        <label htmlFor={errors.inputId('reference')}>Reference</label>
        <input
          required
          autoComplete="off"
          value={reference}
          onChange={(e) => setReference(e.target.value)}
          placeholder="e.g. ABC-2026-001"
          {...errors.field('reference')}
        />
        {errors.message('reference')}
      </div>
      <div className="field">
        <label htmlFor={errors.inputId('title')}>Title</label>
        <input required autoComplete="off" value={title} onChange={(e) => setTitle(e.target.value)} {...errors.field('title')} />
        {errors.message('title')}
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      <button className="button primary" type="submit" disabled={create.isPending}>
        {create.isPending ? 'Opening…' : 'Open case'}
      </button>
    </form>
  );
}
