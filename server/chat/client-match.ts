// The inbound matching rule (SPEC §8, DESIGN "decided"), in one place: a number belongs to a client
// when exactly one client has the same last 9 digits; none or several match nobody (never guess).

/** A scalar SQL subquery giving that client's id, or NULL, for the phone-digits expression `phone`. */
export const matchOneClientSql = (phone: string) =>
  `(SELECT CASE WHEN count(*) = 1 THEN min(m.id) END FROM clients m WHERE m.phone_last9 = right(${phone}, 9))`;
