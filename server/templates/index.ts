export { applyTemplateStatusUpdates, findTemplate, listStoredTemplates, syncTemplates } from './template-catalogue';
