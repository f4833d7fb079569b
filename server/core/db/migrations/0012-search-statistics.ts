import { QueryTypes } from 'sequelize';
import { rebuildSearchColumn, type TSearchLanguage } from '../../search-language';
import type { TMigration } from '../migrate';

// Search plans depend on how common each searched word is (issue 13's 1M-record benchmark): the
// search column now holds chat records' words only (notes and e-mails are not searched, and their
// words made a common word look common in chats too), with a larger statistics sample.
export const searchStatistics: TMigration = {
  name: '0012-search-statistics',
  async up({ context: qi }) {
    const [row] = await qi.sequelize.query<{ language: TSearchLanguage }>('SELECT language FROM search_settings', {
      type: QueryTypes.SELECT,
    });
    await qi.sequelize.transaction((transaction) => rebuildSearchColumn(qi.sequelize, row?.language ?? 'english', transaction));
  },
};
