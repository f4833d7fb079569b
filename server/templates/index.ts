export {
  applyTemplateStatusUpdates,
  findTemplate,
  HEADER_FORMATS,
  listStoredTemplates,
  MEDIA_HEADER_FORMATS,
  syncTemplates,
} from './template-catalogue';
export type { THeaderFormat, TMediaHeaderFormat, TTemplateDto } from './template-catalogue';
