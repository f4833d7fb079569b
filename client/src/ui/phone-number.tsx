import { usePhoneFormatter } from '../lib/format';

export function PhoneNumber({ value }: { value: string | null | undefined }) {
  const format = usePhoneFormatter();
  return <span className="phone">{format(value)}</span>;
}
