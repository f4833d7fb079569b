// History from the phone: a client's old WhatsApp chat brought onto their file.
export { PhoneImportsCard } from './phone-imports-card';
