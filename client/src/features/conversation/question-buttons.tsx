import type { TReplyButton } from '../../../../shared/communication';

/**
 * A question's quick-reply buttons as the client sees them under it: not pressable here (the
 * client's choice comes back as a message of its own, "Chose: …", quoting the question).
 */
export function QuestionButtons({ buttons }: { buttons: TReplyButton[] }) {
  return (
    <ul className="question-buttons" aria-label="Buttons sent with it">
      {buttons.map((button) => (
        <li key={button.id}>
          <button type="button" className="question-button" disabled>
            {button.title}
          </button>
        </li>
      ))}
    </ul>
  );
}
