import { useSyncExternalStore } from 'react';

// The person's Alerts switch (the inbox's "Alerts on/off") and its tone: desktop notifications for
// new messages (inbox) and for notifications (the bell) both follow it. Off until a person turns it
// on in this browser (the permission is asked then, once), kept in localStorage.
const STORAGE_KEY = 'firm-chat:new-message-alerts';
const listeners = new Set<() => void>();

function readPreference(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) === 'on';
  } catch {
    return false;
  }
}

let enabled = typeof window !== 'undefined' && readPreference() && 'Notification' in window && Notification.permission === 'granted';

function setEnabled(value: boolean): void {
  enabled = value;
  try {
    localStorage.setItem(STORAGE_KEY, value ? 'on' : 'off');
  } catch {
    // storage refused (private mode, quota): the choice lasts for this page
  }
  for (const listener of listeners) listener();
}

/** Whether this person turned alerts on in this browser (and the browser still allows them). */
export function alertsOn(): boolean {
  return enabled;
}

export function useAlertsEnabled(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    () => enabled,
  );
}

/** Turns alerts on (asking the browser's permission if not yet given) or off; the outcome in words. */
export async function toggleAlerts(): Promise<string> {
  if (enabled) {
    setEnabled(false);
    return 'New-message alerts are off.';
  }
  if (!('Notification' in window)) return 'This browser cannot show notifications.';
  const permission = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
  if (permission !== 'granted')
    return 'Notifications are blocked for this site: allow them in the browser’s site settings to turn alerts on.';
  setEnabled(true);
  return 'Alerts are on: a notification and a sound when a message arrives, or a conversation is given to you or you are mentioned, while you are elsewhere.';
}

/** A short tone beside a desktop notification. */
export function playTone(): void {
  try {
    const audio = new AudioContext();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(audio.currentTime + 0.35);
    oscillator.onended = () => void audio.close();
  } catch {
    // no audio output: the notification alone
  }
}
