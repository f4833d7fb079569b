import type { TCommunication } from '../../../../shared/communication';
import { formatDateTime } from '../../lib/format';

/** "edited", opening the earlier texts with when each was replaced. */
export function EditHistory({ edits }: { edits: NonNullable<TCommunication['metadata']['edits']> }) {
  return (
    <details className="edit-history">
      <summary>edited</summary>
      <ol>
        {edits.map((edit, i) => (
          <li key={edit.id ?? i}>
            <span className="edit-body">{edit.body || '(empty)'}</span>
            {edit.at && <time dateTime={edit.at}> · replaced {formatDateTime(new Date(edit.at))}</time>}
          </li>
        ))}
      </ol>
    </details>
  );
}
