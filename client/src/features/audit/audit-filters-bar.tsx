import { trpc } from '../../lib/trpc';
import { ACTION_LABEL, type TAuditAction } from './audit-actions';
import { visible } from './audit-event-parts';
import { writeAuditFilters, type TAuditFilters } from './audit-filters';
import { HashFilter } from './audit-hash-filter';
import { AuditSubjectFilter, type TChosenSubject } from './audit-subject-filter';

/** The trail's filters: what kind of event, who, about what, by hash; a change starts again at the newest. */
export function AuditFiltersBar({
  filters,
  setFilters,
  chosenSubject,
  onChooseSubject,
}: {
  filters: TAuditFilters;
  setFilters: (next: TAuditFilters) => void;
  chosenSubject: TChosenSubject | null;
  onChooseSubject: (choice: TChosenSubject | null) => void;
}) {
  const users = trpc.users.list.useQuery();
  return (
    <div className="filters audit-filters" role="group" aria-label="Filter the trail">
      <label className="compact-field">
        <span>Action</span>
        <select
          value={filters.action ?? ''}
          onChange={(e) => setFilters({ ...filters, from: undefined, action: (e.target.value || undefined) as TAuditAction | undefined })}
        >
          <option value="">All actions</option>
          {Object.entries(ACTION_LABEL).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label className="compact-field">
        <span>Who</span>
        <select
          value={filters.userId ?? ''}
          onChange={(e) => setFilters({ ...filters, from: undefined, userId: e.target.value ? Number(e.target.value) : undefined })}
        >
          <option value="">Everyone</option>
          {users.data?.map((u) => (
            <option key={u.id} value={u.id}>
              {visible(u.name)}
            </option>
          ))}
        </select>
      </label>
      <AuditSubjectFilter
        chosen={chosenSubject}
        onChoose={(choice) => {
          onChooseSubject(choice);
          setFilters({ ...filters, from: undefined, subject: choice?.subject });
        }}
      />
      <HashFilter key={filters.hash ?? ''} hash={filters.hash} onFind={(hash) => setFilters({ ...filters, from: undefined, hash })} />
      {writeAuditFilters(filters) !== '' && (
        <button type="button" className="button small ghost audit-clear" onClick={() => setFilters({})}>
          Show the whole trail
        </button>
      )}
    </div>
  );
}
