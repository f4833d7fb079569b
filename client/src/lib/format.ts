import { useSyncExternalStore } from 'react';
import { normalizePhoneDigits } from '../../../shared/phone';

// libphonenumber-js is loaded after first paint: its metadata would otherwise be the
// largest part of the initial bundle. Until then numbers show as "+<digits>".
type TFormatInternational = (digits: string) => string | undefined;
let formatInternational: TFormatInternational | null = null;
const listeners = new Set<() => void>();

export function loadPhoneFormatter(): Promise<void> {
  return import('libphonenumber-js/min').then(({ parsePhoneNumberFromString }) => {
    formatInternational = (digits) => parsePhoneNumberFromString(`+${digits}`)?.formatInternational();
    for (const listener of listeners) listener();
  });
}

/** "+44 7700 900123" from stored digits; national numbers (leading 0) stay as entered. */
export function formatPhone(raw: string | null | undefined): string {
  if (!raw) return '';
  const trimmed = raw.trim();
  if (/^0[1-9]/.test(trimmed)) return trimmed;
  const digits = normalizePhoneDigits(trimmed).replace(/\D/g, '');
  return formatInternational?.(digits) ?? `+${digits}`;
}

/** Re-renders the caller once the formatter has loaded. */
export function usePhoneFormatter(): typeof formatPhone {
  useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => formatInternational,
  );
  return formatPhone;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

export function formatDateTime(date: Date): string {
  return dateTime.format(date);
}

/** The time of day alone ("14:05"): for something later today. */
export function formatTime(date: Date): string {
  return timeOnly.format(date);
}

const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** A day, without its time ("23 Nov 2026"): for lists of files, where a weekday alone is vague. */
export function formatDate(date: Date): string {
  return dateOnly.format(date);
}

const weekday = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
const dayMonth = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
const shortDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'short' });

/**
 * A list's "when", short as a chat app's: the time today, the weekday within the last week, the day
 * and month this year, else a short date (a full date and time squeezed the names in the inbox).
 * The full moment goes in the `<time>` element's title.
 */
export function formatWhen(date: Date, now = new Date()): string {
  if (date.toDateString() === now.toDateString()) return timeOnly.format(date);
  const days = (now.getTime() - date.getTime()) / 86_400_000;
  if (days >= 0 && days < 6) return weekday.format(date);
  if (date.getFullYear() === now.getFullYear()) return dayMonth.format(date);
  return shortDate.format(date);
}

/**
 * How long something has waited, short and rounded down ("45 min", "5 h", "3 d"): for an overdue
 * conversation and the longest wait on the workload view, where minutes past the hour do not matter.
 */
export function formatWaited(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

const weekdayTime = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });

/**
 * A moment ahead, as short as it stays clear ("14:05", "tomorrow 09:00", "Mon 09:00", else the date
 * and time): when a snoozed conversation comes back.
 */
export function formatAhead(date: Date, now = new Date()): string {
  if (date.toDateString() === now.toDateString()) return timeOnly.format(date);
  const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  if (date.toDateString() === tomorrow.toDateString()) return `tomorrow ${timeOnly.format(date)}`;
  const days = (date.getTime() - now.getTime()) / 86_400_000;
  if (days > 0 && days < 6) return weekdayTime.format(date);
  return dateTime.format(date);
}
