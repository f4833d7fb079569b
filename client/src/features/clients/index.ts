// Client files and cases: the pages the app routes to.
export { CasePage } from './case-page';
export { ClientPage } from './client-page';
export { ClientsPage } from './clients-page';
