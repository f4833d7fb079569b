import { useDeferredValue, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { PhoneNumber } from '../../ui/phone-number';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { LockMark } from '../access';

export function ClientsPage() {
  const [search, setSearch] = useState('');
  // Erased clients are final and quiet (server/records/README.md "Records"): listed only under their own filter.
  const [erased, setErased] = useState(false);
  const deferredSearch = useDeferredValue(search.trim());
  const clients = trpc.clients.list.useQuery(
    { ...(deferredSearch ? { search: deferredSearch } : {}), ...(erased ? { erased: true } : {}) },
    { placeholderData: (prev) => prev },
  );
  const empty = erased
    ? deferredSearch
      ? 'No erased client matches that search.'
      : 'No client has been erased.'
    : deferredSearch
      ? 'No client matches that search.'
      : 'No clients yet. Add the first one.';
  return (
    <div className="page">
      <div className="page-header">
        <h1>Clients</h1>
        <div className="segmented" role="group" aria-label="Which clients">
          <button type="button" className="button small ghost" aria-pressed={!erased} onClick={() => setErased(false)}>
            Current
          </button>
          <button type="button" className="button small ghost" aria-pressed={erased} onClick={() => setErased(true)}>
            Erased
          </button>
        </div>
        <label className="search">
          <span className="visually-hidden">Search clients</span>
          <input type="search" placeholder="Search by name or number" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
      </div>
      <div className="two-column">
        <section className="card list-card" aria-label="Client list">
          <QueryStatus query={clients} loading="Loading clients…" padded={false}>
            {(list) =>
              list.length === 0 ? (
                <p className="empty">{empty}</p>
              ) : (
                <ul className="row-list">
                  {list.map((client) => (
                    <li key={client.id}>
                      <Link href={`/clients/${client.id}`} className="row-link">
                        <span className="avatar" aria-hidden="true">
                          {client.name.slice(0, 1)}
                        </span>
                        <span className="row-main">
                          <span className="row-title">
                            {client.name}
                            {client.restricted && <LockMark />}
                          </span>
                          <span className="row-sub">
                            <PhoneNumber value={client.phone} />
                          </span>
                        </span>
                      </Link>
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryStatus>
        </section>
        <CreateClientForm />
      </div>
    </div>
  );
}

function CreateClientForm() {
  const [name, setName] = useState('');
  const [phone, setPhone] = useState('');
  const [email, setEmail] = useState('');
  const utils = trpc.useUtils();
  const [, navigate] = useLocation();
  const create = trpc.clients.create.useMutation({
    onSuccess: (client) => {
      void utils.clients.list.invalidate();
      navigate(`/clients/${client.id}`);
    },
  });
  // Another client has this number: say whose, and let a person decide.
  const conflict = create.error?.data?.code === 'CONFLICT';
  const { formRef, ...errors } = useFormErrors(create.error, ['name', 'phone', 'email'], { warning: conflict });
  const submit = (event: FormEvent, confirm = false) => {
    event.preventDefault();
    create.mutate({ name, phone, email: email.trim() || null, confirm });
  };
  // noValidate: the server decides what is valid and answers for every field at once.
  return (
    <form className="card form-card" onSubmit={submit} aria-labelledby="new-client-title" noValidate ref={formRef}>
      <h2 id="new-client-title">New client</h2>
      <div className="field">
        <label htmlFor={errors.inputId('name')}>Name</label>
        <input required autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} {...errors.field('name')} />
        {errors.message('name')}
      </div>
      <div className="field">
        <label htmlFor={errors.inputId('phone')}>Mobile number</label>
        <input
          required
          inputMode="tel"
          autoComplete="off"
          placeholder="+44 7700 900000 or 07700 900000"
          value={phone}
          onChange={(e) => {
            setPhone(e.target.value);
            // A warning (and its "anyway") belongs to the number it was shown for.
            if (conflict) create.reset();
          }}
          {...errors.field('phone')}
        />
        {errors.message('phone')}
      </div>
      <div className="field">
        <label htmlFor={errors.inputId('email')}>Email (optional)</label>
        <input type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} {...errors.field('email')} />
        {errors.message('email')}
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      {conflict ? (
        <div className="button-row">
          <button className="button primary" type="button" disabled={create.isPending} onClick={(e) => submit(e, true)}>
            Add with this number anyway
          </button>
          <button className="button ghost" type="button" onClick={() => create.reset()}>
            Change the number
          </button>
        </div>
      ) : (
        <button className="button primary" type="submit" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add client'}
        </button>
      )}
    </form>
  );
}
