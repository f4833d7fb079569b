// What WhatsApp's "Export chat" writes in place of a message, in the languages a phone may be set to
// (server/imports/README.md "History from the phone"): English, German, Spanish, French, Portuguese.
// Matched on the message's text with invisible marks removed and case ignored.

/**
 * Lines of the chat itself, not of a person, that come with a sender's name (iOS writes the chat's
 * name before its notices). A line with no sender at all is the chat's whatever it says.
 */
export const SYSTEM_PHRASES: readonly RegExp[] = [
  /^messages and calls are end-to-end encrypted/i,
  /^messages to this (chat|group) are now secured/i,
  /^nachrichten und anrufe sind ende-zu-ende-verschlüsselt/i,
  /^los mensajes y las llamadas están cifrados de extremo a extremo/i,
  /^les messages et les appels sont chiffrés de bout en bout/i,
  /^as mensagens e as chamadas são protegidas com a criptografia de ponta a ponta/i,
  /^(missed (voice|video) call|verpasster (sprach|video)anruf|llamada (de voz|de video) perdida|appel (vocal|vidéo) manqué|chamada de (voz|vídeo) perdida)/i,
  /^(you blocked this contact|you unblocked this contact|du hast diesen kontakt blockiert|bloqueaste este contacto|vous avez bloqué ce contact|você bloqueou este contato)/i,
  /(is a contact|ist ein kontakt|es un contacto|est un contact|é um contato)\.?$/i,
  /^(disappearing messages|selbstlöschende nachrichten|mensajes temporales|messages éphémères|mensagens temporárias)/i,
];

/** A file the export left out ("<Media omitted>" on Android, "image omitted" on iOS). */
export const OMITTED_PHRASES: readonly RegExp[] = [
  /^<(media omitted|medien ausgeschlossen|multimedia omitido|médias omis|mídia oculta|arquivo de mídia oculto)>$/i,
  /^(image|video|audio|sticker|gif|document|contact card) omitted$/i,
  /^(bild|video|audio|sticker|gif|dokument) weggelassen$/i,
  /^(imagen|video|audio|sticker|gif|documento) omitid[oa]$/i,
  /^(image|vidéo|audio|autocollant|gif|document) (absente?|omise?)$/i,
  /^(imagem|vídeo|áudio|figurinha|gif|documento) ocultad[oa]$/i,
];

/** A message its sender deleted: the export keeps only this marker. */
export const DELETED_PHRASES: readonly RegExp[] = [
  /^(this message was deleted|you deleted this message)\.?$/i,
  /^(diese nachricht wurde gelöscht|du hast diese nachricht gelöscht)\.?$/i,
  /^(se eliminó este mensaje|eliminaste este mensaje)\.?$/i,
  /^(ce message a été supprimé|vous avez supprimé ce message)\.?$/i,
  /^(mensagem apagada|você apagou esta mensagem)\.?$/i,
];

/** Written after an edited message's text. */
export const EDITED_SUFFIX =
  /[\s\u200e]*<(this message was edited|diese nachricht wurde bearbeitet|se editó este mensaje\.?|ce message a été modifié|mensagem editada)>$/i;

/** Android's file line: `IMG-20261129-WA0001.jpg (file attached)`. */
export const ANDROID_ATTACHED =
  /^(.+?\.[A-Za-z0-9]{1,8}) \((file attached|datei angehängt|archivo adjunto|fichier joint|arquivo anexado)\)$/i;

/** iOS's file line: `<attached: 00000012-PHOTO-2026-11-29-09-14-03.jpg>`. */
export const IOS_ATTACHED = /^<(attached|anhang|adjunto|pièce jointe|anexado|anexo)\s?:\s*(.+?\.[A-Za-z0-9]{1,8})>$/i;
