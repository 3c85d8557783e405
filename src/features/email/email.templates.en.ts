// The built-in emails in English: also what a language without templates falls back to.
import type { LanguageCopy } from './email.copy.ts';

const ON = '{{#propertyTitle}}: {{propertyTitle}}{{/propertyTitle}} – {{date}}, {{time}}';
const MANAGE = 'View, change or cancel your viewing';

export const en: LanguageCopy = {
  greeting: 'Hello{{#firstName}} {{firstName}}{{/firstName}},',
  signature: ['Kind regards,', '{{agencyName}}'],
  labels: {
    property: 'Property',
    date: 'Date and time',
    address: 'Address',
    agent: 'Agent',
    name: 'Name',
    phone: 'Phone',
    email: 'Email',
    message: 'Message',
    preferredDate: 'Preferred date',
    preferredTime: 'Preferred time',
  },
  kinds: {
    VISIT_CONFIRMATION: {
      subject: `Viewing booked${ON}`,
      intro: ['Your viewing is booked. Here are the details:'],
      action: MANAGE,
      outro: [
        "The invitation attached adds it to your calendar.{{#manageUrl}} If you can't make it, change or cancel it with the link above.{{/manageUrl}}",
      ],
    },
    VISIT_UPDATED: {
      subject: `Viewing changed${ON}`,
      intro: ['Your viewing has changed. This is the new appointment:'],
      action: MANAGE,
      outro: ['The invitation attached updates it in your calendar.'],
    },
    VISIT_CANCELLED: {
      subject: `Viewing cancelled${ON}`,
      intro: ['Your viewing has been cancelled:'],
      outro: ["If you'd like to see the property another day, get in touch and we'll find a new time."],
    },
    VISIT_REMINDER: {
      subject: `Reminder of your viewing${ON}`,
      intro: ['A reminder of your upcoming viewing:'],
      action: MANAGE,
      outro: [
        "{{#manageUrl}}If you can't make it after all, please change or cancel it with the link above.{{/manageUrl}}",
      ],
    },
    BOOKING_ALERT: {
      subject: 'New viewing booked: {{contactName}} – {{date}}, {{time}}',
      intro: ['A viewing has just been booked on the booking page:'],
      action: 'Open the viewing',
    },
    LEAD_ALERT: {
      subject: 'New enquiry: {{contactName}}{{#propertyTitle}} – {{propertyTitle}}{{/propertyTitle}}',
      intro: ['A new enquiry has come in:'],
      action: 'Open the enquiry',
      outro: ['Answering within the hour makes a viewing far more likely.'],
    },
    VISIT_REQUEST_ALERT: {
      subject: 'Viewing request: {{contactName}}{{#propertyTitle}} – {{propertyTitle}}{{/propertyTitle}}',
      intro: ['Someone would like to view a property. Confirm the viewing or suggest another time:'],
      action: 'Open the request',
    },
  },
};
