// Scheduled sends (server/messaging/README.md "Scheduled sends"): the page, and the "Send later" pieces the composer uses.
export type { TScheduledSend } from './scheduled-send';
export { ScheduledPage } from './scheduled-page';
export { ScheduledStrip } from './scheduled-strip';
export { SendLaterMenu } from './send-later-menu';
export { SendLaterPicker } from './send-later-picker';
export { useFirmTimeZone, withZone, type TFirmZone } from './use-firm-time-zone';
export { useScheduledActions, type TReplyOption } from './use-scheduled-actions';
export { windowWarning, type TReplyWindow } from './window-warning';
