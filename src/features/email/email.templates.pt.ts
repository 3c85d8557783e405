// The built-in emails in Portuguese (European Portuguese, as agencies in Portugal write).
import type { LanguageCopy } from './email.copy.ts';

const ON = '{{#propertyTitle}}: {{propertyTitle}}{{/propertyTitle}} – {{date}}, {{time}}';
const MANAGE = 'Ver, alterar ou cancelar a visita';

export const pt: LanguageCopy = {
  greeting: 'Olá{{#firstName}} {{firstName}}{{/firstName}},',
  signature: ['Com os melhores cumprimentos,', '{{agencyName}}'],
  labels: {
    property: 'Imóvel',
    date: 'Data e hora',
    address: 'Morada',
    agent: 'Consultor',
    name: 'Nome',
    phone: 'Telefone',
    email: 'Email',
    message: 'Mensagem',
    preferredDate: 'Data preferida',
    preferredTime: 'Hora preferida',
  },
  kinds: {
    VISIT_CONFIRMATION: {
      subject: `Visita marcada${ON}`,
      intro: ['A sua visita está marcada. Eis os detalhes:'],
      action: MANAGE,
      outro: [
        'Enviamos em anexo o convite para o seu calendário.{{#manageUrl}} Se não puder comparecer, altere ou cancele a visita na ligação acima.{{/manageUrl}}',
      ],
    },
    VISIT_UPDATED: {
      subject: `Visita alterada${ON}`,
      intro: ['A sua visita foi alterada. Esta é a nova marcação:'],
      action: MANAGE,
      outro: ['O convite em anexo atualiza a marcação no seu calendário.'],
    },
    VISIT_CANCELLED: {
      subject: `Visita cancelada${ON}`,
      intro: ['A sua visita foi cancelada:'],
      outro: ['Se quiser visitar o imóvel noutro dia, contacte-nos e marcamos uma nova data.'],
    },
    VISIT_REMINDER: {
      subject: `Lembrete da sua visita${ON}`,
      intro: ['Lembramos a sua próxima visita:'],
      action: MANAGE,
      outro: [
        '{{#manageUrl}}Se afinal não puder comparecer, altere ou cancele a visita na ligação acima.{{/manageUrl}}',
      ],
    },
    BOOKING_ALERT: {
      subject: 'Nova visita marcada: {{contactName}} – {{date}}, {{time}}',
      intro: ['Acaba de ser marcada uma visita na página de marcações:'],
      action: 'Abrir a visita',
    },
    LEAD_ALERT: {
      subject: 'Novo contacto: {{contactName}}{{#propertyTitle}} – {{propertyTitle}}{{/propertyTitle}}',
      intro: ['Chegou um novo contacto:'],
      action: 'Abrir o contacto',
      outro: ['Responder na primeira hora aumenta muito a probabilidade de marcar uma visita.'],
    },
    VISIT_REQUEST_ALERT: {
      subject: 'Pedido de visita: {{contactName}}{{#propertyTitle}} – {{propertyTitle}}{{/propertyTitle}}',
      intro: ['Alguém quer visitar um imóvel. Confirme a visita ou proponha outra data:'],
      action: 'Abrir o pedido',
    },
  },
};
