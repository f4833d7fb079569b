// Words the server uses and the client recognises: a failed message whose error starts so was
// refused for the 24-hour window, and the thread offers an approved template right there.
export const WINDOW_CLOSED_PREFIX = 'More than 24 hours have passed since';

// A send whose outcome is not known (the provider's answer was lost, or the server stopped
// mid-send): resending may send it twice,
// so the thread asks before it retries.
export const UNKNOWN_OUTCOME_PREFIX = 'Unknown —';
