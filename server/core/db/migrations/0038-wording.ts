import type { TMigration } from '../migration-type';

// The firm's wording (quick replies), the directors' to edit (server/wording/README.md "Firm wording").
// Its first rows are the list the SPA carried until now, copied here rather than imported (0004: a
// migration stands alone), with the client's first name as `{{client.firstName}}`. The request role
// gets its rights on the table from grantRequestRole, like every table.
const BUILT_IN: [title: string, body: string][] = [
  [
    'Appointment reminder',
    'Hello {{client.firstName}}, this is {{firm_name}} reminding you of your appointment about {{case_reference}}. Please reply to confirm, or call us on {{firm_phone}} to rearrange.',
  ],
  [
    'Document request',
    'Hello {{client.firstName}}, to move {{case_reference}} forward we need a few documents from you. You can reply here with photos or scans, or drop them at our office. Thank you, {{firm_name}}.',
  ],
  [
    'Hearing date',
    'Hello {{client.firstName}}, the hearing for {{case_reference}} ({{case_title}}) has been listed. We will send you the date, time and venue details and what to bring. {{firm_name}}.',
  ],
  [
    'Payment reminder',
    'Hello {{client.firstName}}, a friendly reminder that an invoice for {{case_reference}} is now due. If you have already paid, thank you and please ignore this message. {{firm_name}}, {{firm_phone}}.',
  ],
  [
    'Please call us',
    'Hello {{client.firstName}}, could you please call {{firm_name}} on {{firm_phone}} when convenient? We have an update on your matter.',
  ],
  [
    'Message received',
    'Thank you {{client.firstName}}, we have received your message and a member of the team will reply shortly. {{firm_name}}.',
  ],
];

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

export const wording: TMigration = {
  name: '0038-wording',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      CREATE TABLE firm_wording (
        id serial PRIMARY KEY,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 80),
        body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 4096),
        created_by integer REFERENCES users(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_by integer REFERENCES users(id),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      INSERT INTO firm_wording (title, body) VALUES
        ${BUILT_IN.map(([title, body]) => `(${quote(title)}, ${quote(body)})`).join(',\n        ')};
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query('DROP TABLE IF EXISTS firm_wording');
  },
};
