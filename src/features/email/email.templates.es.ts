// The built-in emails in Spanish (tuteo, as agencies write to visitors on the Costa del Sol).
import type { LanguageCopy } from './email.copy.ts';

const ON = '{{#propertyTitle}}: {{propertyTitle}}{{/propertyTitle}} – {{date}}, {{time}}';
const MANAGE = 'Ver, cambiar o cancelar la visita';

export const es: LanguageCopy = {
  greeting: 'Hola{{#firstName}} {{firstName}}{{/firstName}},',
  signature: ['Un saludo,', '{{agencyName}}'],
  labels: {
    property: 'Inmueble',
    date: 'Fecha y hora',
    address: 'Dirección',
    agent: 'Agente',
    name: 'Nombre',
    phone: 'Teléfono',
    email: 'Email',
    message: 'Mensaje',
    preferredDate: 'Fecha preferida',
    preferredTime: 'Hora preferida',
  },
  kinds: {
    VISIT_CONFIRMATION: {
      subject: `Visita reservada${ON}`,
      intro: ['Tu visita está reservada. Estos son los detalles:'],
      action: MANAGE,
      outro: [
        'Te adjuntamos la cita para que la añadas a tu calendario.{{#manageUrl}} Si no puedes venir, cámbiala o cancélala con el enlace de arriba.{{/manageUrl}}',
      ],
    },
    VISIT_UPDATED: {
      subject: `Visita cambiada${ON}`,
      intro: ['Tu visita ha cambiado. Esta es la nueva cita:'],
      action: MANAGE,
      outro: ['El archivo adjunto actualiza la cita en tu calendario.'],
    },
    VISIT_CANCELLED: {
      subject: `Visita cancelada${ON}`,
      intro: ['Tu visita ha quedado cancelada:'],
      outro: [
        'Si quieres visitar el inmueble otro día, ponte en contacto con nosotros y buscamos una nueva fecha.',
      ],
    },
    VISIT_REMINDER: {
      subject: `Recordatorio de tu visita${ON}`,
      intro: ['Te recordamos tu próxima visita:'],
      action: MANAGE,
      outro: [
        '{{#manageUrl}}Si al final no puedes venir, avísanos cambiándola o cancelándola con el enlace de arriba.{{/manageUrl}}',
      ],
    },
    BOOKING_ALERT: {
      subject: 'Nueva visita reservada: {{contactName}} – {{date}}, {{time}}',
      intro: ['Se acaba de reservar una visita desde la página de reservas:'],
      action: 'Ver la visita',
    },
    LEAD_ALERT: {
      subject: 'Nuevo contacto: {{contactName}}{{#propertyTitle}} – {{propertyTitle}}{{/propertyTitle}}',
      intro: ['Ha llegado un nuevo contacto:'],
      action: 'Ver el contacto',
      outro: ['Responder en la primera hora multiplica las posibilidades de concertar una visita.'],
    },
    VISIT_REQUEST_ALERT: {
      subject: 'Solicitud de visita: {{contactName}}{{#propertyTitle}} – {{propertyTitle}}{{/propertyTitle}}',
      intro: ['Alguien quiere visitar un inmueble. Confirma la visita o propón otra fecha:'],
      action: 'Ver la solicitud',
    },
  },
};
