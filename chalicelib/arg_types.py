"""The arguments of every operation as TypedDicts, generated from the registry's JSON Schemas
by `make generate` (generate/arg_types.py; do not edit: `make check` says when it is due). A
handler annotates its arguments with its operation's type: `args: ContactsMergeArgs`."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class AccountingBankaccountinfosCreateContactArgsBankAccountInfo(TypedDict):
    iban: str
    bic: NotRequired[str]
    accountHolder: str
    bankName: NotRequired[str]
    label: NotRequired[str]
    accountType: NotRequired[Literal["current", "reserve", "deposit", "other"]]


class AccountingBankaccountinfosCreateContactArgs(TypedDict):
    bankAccountInfo: AccountingBankaccountinfosCreateContactArgsBankAccountInfo
    contact: str


class AccountingBankaccountinfosCreateObjectArgsBankAccountInfo(TypedDict):
    iban: str
    bic: NotRequired[str]
    accountHolder: str
    bankName: NotRequired[str]
    label: NotRequired[str]
    accountType: NotRequired[Literal["current", "reserve", "deposit", "other"]]


class AccountingBankaccountinfosCreateObjectArgs(TypedDict):
    bankAccountInfo: AccountingBankaccountinfosCreateObjectArgsBankAccountInfo
    object: str


class AccountingBankaccountinfosDeleteArgs(TypedDict):
    bankAccountInfo: str


class AccountingBankaccountinfosDetailArgs(TypedDict):
    bankAccountInfo: str


class AccountingBankaccountinfosListArgs(TypedDict):
    iban: NotRequired[str]
    object: NotRequired[str]
    contact: NotRequired[str]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class AccountingBankaccountinfosRestoreArgs(TypedDict):
    bankAccountInfo: str


class AccountingBankaccountinfosUpdateArgsBankAccountInfo(TypedDict):
    id: str
    iban: NotRequired[str]
    bic: NotRequired[str | None]
    accountHolder: NotRequired[str]
    bankName: NotRequired[str | None]
    label: NotRequired[str | None]
    accountType: NotRequired[Literal["current", "reserve", "deposit", "other"] | None]
    version: NotRequired[int]


class AccountingBankaccountinfosUpdateArgs(TypedDict):
    bankAccountInfo: AccountingBankaccountinfosUpdateArgsBankAccountInfo


class AccountingBankaccountinfosUpsertArgsItemsItem(TypedDict):
    alias: str
    iban: str
    bic: NotRequired[str]
    accountHolder: str
    bankName: NotRequired[str]
    label: NotRequired[str]
    accountType: NotRequired[Literal["current", "reserve", "deposit", "other"]]
    contactId: NotRequired[str]
    objectId: NotRequired[str]


class AccountingBankaccountinfosUpsertArgs(TypedDict):
    items: list[AccountingBankaccountinfosUpsertArgsItemsItem]


class AccountingBankaccountuseCreateArgsBankAccountUse(TypedDict):
    bankAccountInfoId: str
    purpose: Literal["rent", "serviceCharges", "deposit", "refund", "directDebit", "payout"]
    validFrom: str
    validTo: NotRequired[str]


class AccountingBankaccountuseCreateArgs(TypedDict):
    bankAccountUse: AccountingBankaccountuseCreateArgsBankAccountUse
    contract: str


class AccountingBankaccountuseDeleteArgs(TypedDict):
    bankAccountUse: str


class AccountingBankaccountuseDetailArgs(TypedDict):
    bankAccountUse: str


class AccountingBankaccountuseRestoreArgs(TypedDict):
    bankAccountUse: str


class AccountingBankaccountuseUpdateArgsBankAccountUse(TypedDict):
    id: str
    bankAccountInfoId: NotRequired[str]
    purpose: NotRequired[Literal["rent", "serviceCharges", "deposit", "refund", "directDebit", "payout"]]
    validFrom: NotRequired[str]
    validTo: NotRequired[str | None]
    version: NotRequired[int]


class AccountingBankaccountuseUpdateArgs(TypedDict):
    bankAccountUse: AccountingBankaccountuseUpdateArgsBankAccountUse


class AccountingBankaccountuseUpsertArgsItemsItem(TypedDict):
    alias: str
    bankAccountInfoId: str
    purpose: Literal["rent", "serviceCharges", "deposit", "refund", "directDebit", "payout"]
    validFrom: str
    validTo: NotRequired[str]
    contractId: str


class AccountingBankaccountuseUpsertArgs(TypedDict):
    items: list[AccountingBankaccountuseUpsertArgsItemsItem]


class AccountingContractBankaccountuseFordateArgs(TypedDict):
    contract: str
    purpose: Literal["rent", "serviceCharges", "deposit", "refund", "directDebit", "payout"]
    validOn: str


class AccountingDirectdebitmandateCreateArgsDirectDebitMandate(TypedDict):
    contactId: str
    objectId: NotRequired[str]
    contractId: NotRequired[str]
    bankAccountInfoId: NotRequired[str]
    iban: str
    bic: NotRequired[str]
    accountHolder: str
    creditorId: str
    mandateReference: NotRequired[str]
    signatureDate: str
    type: NotRequired[Literal["CORE", "B2B"]]
    sequence: NotRequired[Literal["FRST", "RCUR", "OOFF", "FNAL"]]
    status: NotRequired[Literal["active", "revoked", "expired"]]
    validUntil: NotRequired[str]


class AccountingDirectdebitmandateCreateArgs(TypedDict):
    directDebitMandate: AccountingDirectdebitmandateCreateArgsDirectDebitMandate


class AccountingDirectdebitmandateDeleteArgs(TypedDict):
    directDebitMandate: str


class AccountingDirectdebitmandateDetailArgs(TypedDict):
    directDebitMandate: str


class AccountingDirectdebitmandateGeneratereferenceArgs(TypedDict):
    directDebitMandate: str


class AccountingDirectdebitmandateRestoreArgs(TypedDict):
    directDebitMandate: str


class AccountingDirectdebitmandateUpdateArgsDirectDebitMandate(TypedDict):
    id: str
    contactId: NotRequired[str]
    objectId: NotRequired[str | None]
    contractId: NotRequired[str | None]
    bankAccountInfoId: NotRequired[str | None]
    iban: NotRequired[str]
    bic: NotRequired[str | None]
    accountHolder: NotRequired[str]
    creditorId: NotRequired[str]
    mandateReference: NotRequired[str | None]
    signatureDate: NotRequired[str]
    type: NotRequired[Literal["CORE", "B2B"] | None]
    sequence: NotRequired[Literal["FRST", "RCUR", "OOFF", "FNAL"] | None]
    status: NotRequired[Literal["active", "revoked", "expired"] | None]
    validUntil: NotRequired[str | None]
    version: NotRequired[int]


class AccountingDirectdebitmandateUpdateArgs(TypedDict):
    directDebitMandate: AccountingDirectdebitmandateUpdateArgsDirectDebitMandate


class AccountingDirectdebitmandatesListArgs(TypedDict):
    iban: NotRequired[str]
    object: NotRequired[str]
    contact: NotRequired[str]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class AccountingDirectdebitmandatesUpsertArgsItemsItem(TypedDict):
    alias: str
    contactId: str
    objectId: NotRequired[str]
    contractId: NotRequired[str]
    bankAccountInfoId: NotRequired[str]
    iban: str
    bic: NotRequired[str]
    accountHolder: str
    creditorId: str
    mandateReference: NotRequired[str]
    signatureDate: str
    type: NotRequired[Literal["CORE", "B2B"]]
    sequence: NotRequired[Literal["FRST", "RCUR", "OOFF", "FNAL"]]
    status: NotRequired[Literal["active", "revoked", "expired"]]
    validUntil: NotRequired[str]


class AccountingDirectdebitmandatesUpsertArgs(TypedDict):
    items: list[AccountingDirectdebitmandatesUpsertArgsItemsItem]


class AccountingInboundinvoicesCreateArgsInboundInvoice(TypedDict):
    objectId: str
    supplierId: NotRequired[str]
    invoiceNumber: str
    invoiceDate: str
    dueDate: NotRequired[str]
    netAmount: NotRequired[str]
    taxAmount: NotRequired[str]
    grossAmount: NotRequired[str]
    taxRate: NotRequired[Literal["0", "7", "19"]]
    currency: NotRequired[Literal["EUR"]]
    bookingAccount: NotRequired[str]
    costCenter: NotRequired[str]
    unitId: NotRequired[str]
    processId: NotRequired[str]
    description: NotRequired[str]
    paymentStatus: NotRequired[Literal["open", "partiallyPaid", "paid", "cancelled"]]
    paidAmount: NotRequired[str]
    paidAt: NotRequired[str]


class AccountingInboundinvoicesCreateArgs(TypedDict):
    inboundInvoice: AccountingInboundinvoicesCreateArgsInboundInvoice


class AccountingInboundinvoicesDeleteArgs(TypedDict):
    inboundInvoice: str


class AccountingInboundinvoicesListArgs(TypedDict):
    object: str
    updatedSince: NotRequired[str]
    limit: NotRequired[int]
    offset: NotRequired[int]


class AccountingInboundinvoicesRestoreArgs(TypedDict):
    inboundInvoice: str


class AccountingInboundinvoicesShowArgs(TypedDict):
    inboundInvoice: str


class AccountingInboundinvoicesUpdateArgsInboundInvoice(TypedDict):
    id: str
    objectId: NotRequired[str]
    supplierId: NotRequired[str | None]
    invoiceNumber: NotRequired[str]
    invoiceDate: NotRequired[str]
    dueDate: NotRequired[str | None]
    netAmount: NotRequired[str | None]
    taxAmount: NotRequired[str | None]
    grossAmount: NotRequired[str | None]
    taxRate: NotRequired[Literal["0", "7", "19"] | None]
    currency: NotRequired[Literal["EUR"] | None]
    bookingAccount: NotRequired[str | None]
    costCenter: NotRequired[str | None]
    unitId: NotRequired[str | None]
    processId: NotRequired[str | None]
    description: NotRequired[str | None]
    paymentStatus: NotRequired[Literal["open", "partiallyPaid", "paid", "cancelled"] | None]
    paidAmount: NotRequired[str | None]
    paidAt: NotRequired[str | None]
    version: NotRequired[int]


class AccountingInboundinvoicesUpdateArgs(TypedDict):
    inboundInvoice: AccountingInboundinvoicesUpdateArgsInboundInvoice


class AccountingInboundinvoicesUpsertArgsItemsItem(TypedDict):
    alias: str
    objectId: str
    supplierId: NotRequired[str]
    invoiceNumber: str
    invoiceDate: str
    dueDate: NotRequired[str]
    netAmount: NotRequired[str]
    taxAmount: NotRequired[str]
    grossAmount: NotRequired[str]
    taxRate: NotRequired[Literal["0", "7", "19"]]
    currency: NotRequired[Literal["EUR"]]
    bookingAccount: NotRequired[str]
    costCenter: NotRequired[str]
    unitId: NotRequired[str]
    processId: NotRequired[str]
    description: NotRequired[str]
    paymentStatus: NotRequired[Literal["open", "partiallyPaid", "paid", "cancelled"]]
    paidAmount: NotRequired[str]
    paidAt: NotRequired[str]


class AccountingInboundinvoicesUpsertArgs(TypedDict):
    items: list[AccountingInboundinvoicesUpsertArgsItemsItem]


class AccountingObjectBankaccountinfosArgs(TypedDict):
    object: str
    updatedSince: NotRequired[str]
    limit: NotRequired[int]
    offset: NotRequired[int]


class AdvisorsAssignArgsAdvisor(TypedDict):
    objectId: str
    contactId: str
    role: Literal["advisoryBoardChair", "advisoryBoardMember", "auditor", "taxAdvisor", "lawyer", "other"]
    since: NotRequired[str]
    until: NotRequired[str]


class AdvisorsAssignArgs(TypedDict):
    advisor: AdvisorsAssignArgsAdvisor


class AdvisorsListArgs(TypedDict):
    objectId: NotRequired[str]
    contactId: NotRequired[str]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class AdvisorsRestoreArgs(TypedDict):
    advisor: str


class AdvisorsRevokeArgs(TypedDict):
    advisor: str


class AdvisorsShowArgs(TypedDict):
    advisor: str


class AdvisorsUpdateArgsAdvisor(TypedDict):
    id: str
    objectId: NotRequired[str]
    contactId: NotRequired[str]
    role: NotRequired[Literal["advisoryBoardChair", "advisoryBoardMember", "auditor", "taxAdvisor", "lawyer", "other"]]
    since: NotRequired[str | None]
    until: NotRequired[str | None]
    version: NotRequired[int]


class AdvisorsUpdateArgs(TypedDict):
    advisor: AdvisorsUpdateArgsAdvisor


class AdvisorsUpsertArgsItemsItem(TypedDict):
    alias: str
    objectId: str
    contactId: str
    role: Literal["advisoryBoardChair", "advisoryBoardMember", "auditor", "taxAdvisor", "lawyer", "other"]
    since: NotRequired[str]
    until: NotRequired[str]


class AdvisorsUpsertArgs(TypedDict):
    items: list[AdvisorsUpsertArgsItemsItem]


class AliasesListArgs(TypedDict):
    limit: int
    offset: int


class AliasesResolveArgs(TypedDict):
    aliases: NotRequired[list[str]]
    ids: NotRequired[list[str]]


class AliasesUpsertArgsEntriesItem(TypedDict):
    alias: str
    id: str
    type: str


class AliasesUpsertArgs(TypedDict):
    entries: list[AliasesUpsertArgsEntriesItem]


class ApikeysCreateArgsApiKey(TypedDict):
    agentName: str
    scopes: list[Literal["read", "write", "destructive", "admin", "read:contacts", "read:contracts", "read:units", "read:objects", "read:documents", "read:processes", "read:responsibilities", "read:advisors", "read:signatories", "read:callrecords", "read:accounting", "read:aliases", "read:webhooks", "read:uvi", "read:exports", "write:contacts", "write:contracts", "write:units", "write:objects", "write:documents", "write:processes", "write:responsibilities", "write:advisors", "write:signatories", "write:callrecords", "write:accounting", "write:aliases", "write:webhooks", "write:uvi", "write:exports"]]
    person: NotRequired[str]
    expiresAt: NotRequired[str]
    untrustedText: NotRequired[Literal["show", "omit"]]
    objects: NotRequired[list[str]]


class ApikeysCreateArgs(TypedDict):
    apiKey: ApikeysCreateArgsApiKey


class ApikeysDisableArgs(TypedDict):
    apiKey: str


class ApikeysListArgs(TypedDict):
    limit: int
    offset: int


class ApikeysRequestsListArgs(TypedDict):
    apiKey: str
    limit: int
    offset: int


class ApikeysShowArgs(TypedDict):
    apiKey: str


class ApikeysUsageArgs(TypedDict):
    apiKey: NotRequired[str]


AuditListArgs = TypedDict(
    "AuditListArgs",
    {
        "entityType": NotRequired[str],
        "entityId": NotRequired[str],
        "keyId": NotRequired[str],
        "agentName": NotRequired[str],
        "operation": NotRequired[str],
        "from": NotRequired[str],
        "to": NotRequired[str],
        "after": NotRequired[str],
        "limit": int,
        "offset": NotRequired[int],
    },
)


AuditRevertArgsFilter = TypedDict(
    "AuditRevertArgsFilter",
    {
        "entityId": NotRequired[str],
        "keyId": NotRequired[str],
        "agentName": NotRequired[str],
        "operation": NotRequired[str],
        "from": NotRequired[str],
        "to": NotRequired[str],
    },
)


class AuditRevertArgs(TypedDict):
    auditRecord: NotRequired[str]
    filter: NotRequired[AuditRevertArgsFilter]
    force: NotRequired[bool]
    dryRun: NotRequired[bool]


class AuditShowArgs(TypedDict):
    auditRecord: str


class CallrecordsCreateArgsCallRecord(TypedDict):
    contactId: NotRequired[str]
    objectId: NotRequired[str]
    processId: NotRequired[str]
    direction: NotRequired[Literal["inbound", "outbound"]]
    phoneNumber: NotRequired[str]
    startedAt: str
    durationSeconds: NotRequired[int]
    subject: NotRequired[str]
    notes: NotRequired[str]
    outcome: NotRequired[Literal["reached", "voicemail", "noAnswer", "callbackRequested"]]


class CallrecordsCreateArgs(TypedDict):
    callRecord: CallrecordsCreateArgsCallRecord


class CallrecordsDeleteArgs(TypedDict):
    callRecord: str


class CallrecordsRestoreArgs(TypedDict):
    callRecord: str


class CallrecordsShowArgs(TypedDict):
    callRecord: str


class CallrecordsUpdateArgsCallRecord(TypedDict):
    id: str
    contactId: NotRequired[str | None]
    objectId: NotRequired[str | None]
    processId: NotRequired[str | None]
    direction: NotRequired[Literal["inbound", "outbound"] | None]
    phoneNumber: NotRequired[str | None]
    startedAt: NotRequired[str]
    durationSeconds: NotRequired[int | None]
    subject: NotRequired[str | None]
    notes: NotRequired[str | None]
    outcome: NotRequired[Literal["reached", "voicemail", "noAnswer", "callbackRequested"] | None]
    version: NotRequired[int]


class CallrecordsUpdateArgs(TypedDict):
    callRecord: CallrecordsUpdateArgsCallRecord


class CallrecordsUpsertArgsItemsItem(TypedDict):
    alias: str
    contactId: NotRequired[str]
    objectId: NotRequired[str]
    processId: NotRequired[str]
    direction: NotRequired[Literal["inbound", "outbound"]]
    phoneNumber: NotRequired[str]
    startedAt: str
    durationSeconds: NotRequired[int]
    subject: NotRequired[str]
    notes: NotRequired[str]
    outcome: NotRequired[Literal["reached", "voicemail", "noAnswer", "callbackRequested"]]


class CallrecordsUpsertArgs(TypedDict):
    items: list[CallrecordsUpsertArgsItemsItem]


class ChangesListArgs(TypedDict):
    after: NotRequired[str]
    since: NotRequired[str]
    entityTypes: NotRequired[list[str]]
    limit: int


class ContactsArgs(TypedDict):
    companyId: NotRequired[str]
    personType: NotRequired[Literal["natural", "legal"]]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class ContactsCreateArgsContactEmailsItem(TypedDict):
    address: str
    type: NotRequired[Literal["private", "work", "other"]]
    primary: NotRequired[bool]


class ContactsCreateArgsContactPhonesItem(TypedDict):
    number: str
    type: NotRequired[Literal["mobile", "landline", "fax", "other"]]
    primary: NotRequired[bool]


class ContactsCreateArgsContactAddress(TypedDict):
    street: str
    houseNumber: NotRequired[str]
    addition: NotRequired[str]
    postalCode: str
    city: str
    countryCode: NotRequired[str]


class ContactsCreateArgsContact(TypedDict):
    personType: Literal["natural", "legal"]
    salutation: NotRequired[Literal["mr", "ms", "mx", "family", "company", "none"]]
    title: NotRequired[str]
    firstName: NotRequired[str]
    lastName: NotRequired[str]
    companyName: NotRequired[str]
    legalForm: NotRequired[str]
    companyId: NotRequired[str]
    emails: NotRequired[list[ContactsCreateArgsContactEmailsItem]]
    phones: NotRequired[list[ContactsCreateArgsContactPhonesItem]]
    address: NotRequired[ContactsCreateArgsContactAddress]
    language: NotRequired[str]
    dateOfBirth: NotRequired[str]
    vatId: NotRequired[str]
    notes: NotRequired[str]


class ContactsCreateArgs(TypedDict):
    contact: ContactsCreateArgsContact


class ContactsDeleteArgs(TypedDict):
    contact: str


class ContactsMergeArgs(TypedDict):
    sourceContact: str
    targetContact: str


class ContactsRestoreArgs(TypedDict):
    contact: str


class ContactsShowArgs(TypedDict):
    contact: str


class ContactsUpdateArgsContactEmailsItem(TypedDict):
    address: str
    type: NotRequired[Literal["private", "work", "other"]]
    primary: NotRequired[bool]


class ContactsUpdateArgsContactPhonesItem(TypedDict):
    number: str
    type: NotRequired[Literal["mobile", "landline", "fax", "other"]]
    primary: NotRequired[bool]


class ContactsUpdateArgsContactAddress(TypedDict):
    street: str
    houseNumber: NotRequired[str]
    addition: NotRequired[str]
    postalCode: str
    city: str
    countryCode: NotRequired[str]


class ContactsUpdateArgsContact(TypedDict):
    id: str
    personType: NotRequired[Literal["natural", "legal"]]
    salutation: NotRequired[Literal["mr", "ms", "mx", "family", "company", "none"] | None]
    title: NotRequired[str | None]
    firstName: NotRequired[str | None]
    lastName: NotRequired[str | None]
    companyName: NotRequired[str | None]
    legalForm: NotRequired[str | None]
    companyId: NotRequired[str | None]
    emails: NotRequired[list[ContactsUpdateArgsContactEmailsItem] | None]
    phones: NotRequired[list[ContactsUpdateArgsContactPhonesItem] | None]
    address: NotRequired[ContactsUpdateArgsContactAddress | None]
    language: NotRequired[str | None]
    dateOfBirth: NotRequired[str | None]
    vatId: NotRequired[str | None]
    notes: NotRequired[str | None]
    version: NotRequired[int]


class ContactsUpdateArgs(TypedDict):
    contact: ContactsUpdateArgsContact


class ContactsUpsertArgsItemsItemEmailsItem(TypedDict):
    address: str
    type: NotRequired[Literal["private", "work", "other"]]
    primary: NotRequired[bool]


class ContactsUpsertArgsItemsItemPhonesItem(TypedDict):
    number: str
    type: NotRequired[Literal["mobile", "landline", "fax", "other"]]
    primary: NotRequired[bool]


class ContactsUpsertArgsItemsItemAddress(TypedDict):
    street: str
    houseNumber: NotRequired[str]
    addition: NotRequired[str]
    postalCode: str
    city: str
    countryCode: NotRequired[str]


class ContactsUpsertArgsItemsItem(TypedDict):
    alias: str
    personType: Literal["natural", "legal"]
    salutation: NotRequired[Literal["mr", "ms", "mx", "family", "company", "none"]]
    title: NotRequired[str]
    firstName: NotRequired[str]
    lastName: NotRequired[str]
    companyName: NotRequired[str]
    legalForm: NotRequired[str]
    companyId: NotRequired[str]
    emails: NotRequired[list[ContactsUpsertArgsItemsItemEmailsItem]]
    phones: NotRequired[list[ContactsUpsertArgsItemsItemPhonesItem]]
    address: NotRequired[ContactsUpsertArgsItemsItemAddress]
    language: NotRequired[str]
    dateOfBirth: NotRequired[str]
    vatId: NotRequired[str]
    notes: NotRequired[str]


class ContactsUpsertArgs(TypedDict):
    items: list[ContactsUpsertArgsItemsItem]


class ContractsArgs(TypedDict):
    objectId: NotRequired[str]
    unitId: NotRequired[str]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class ContractsCreateArgsContractPartiesItem(TypedDict):
    contactId: str
    role: Literal["tenant", "coTenant", "owner", "coOwner", "guarantor", "subtenant"]
    share: NotRequired[str]


class ContractsCreateArgsContractRent(TypedDict):
    baseRent: NotRequired[str]
    serviceChargeAdvance: NotRequired[str]
    heatingAdvance: NotRequired[str]
    otherAdvance: NotRequired[str]
    currency: NotRequired[Literal["EUR"]]


class ContractsCreateArgsContractDeposit(TypedDict):
    amount: NotRequired[str]
    type: NotRequired[Literal["cash", "bankGuarantee", "depositAccount", "suretyBond"]]
    paidAt: NotRequired[str]


class ContractsCreateArgsContract(TypedDict):
    unitId: str
    type: Literal["lease", "ownership"]
    parties: list[ContractsCreateArgsContractPartiesItem]
    startDate: str
    endDate: NotRequired[str]
    rent: NotRequired[ContractsCreateArgsContractRent]
    rentType: NotRequired[Literal["standard", "index", "graduated"]]
    deposit: NotRequired[ContractsCreateArgsContractDeposit]
    noticePeriodMonths: NotRequired[int]
    vatApplicable: NotRequired[bool]
    notes: NotRequired[str]


class ContractsCreateArgs(TypedDict):
    contract: ContractsCreateArgsContract


class ContractsDeleteArgs(TypedDict):
    contract: str


class ContractsRestoreArgs(TypedDict):
    contract: str


class ContractsShowArgs(TypedDict):
    contract: str


class ContractsUpdateArgsContractPartiesItem(TypedDict):
    contactId: str
    role: Literal["tenant", "coTenant", "owner", "coOwner", "guarantor", "subtenant"]
    share: NotRequired[str]


class ContractsUpdateArgsContractRent(TypedDict):
    baseRent: NotRequired[str]
    serviceChargeAdvance: NotRequired[str]
    heatingAdvance: NotRequired[str]
    otherAdvance: NotRequired[str]
    currency: NotRequired[Literal["EUR"]]


class ContractsUpdateArgsContractDeposit(TypedDict):
    amount: NotRequired[str]
    type: NotRequired[Literal["cash", "bankGuarantee", "depositAccount", "suretyBond"]]
    paidAt: NotRequired[str]


class ContractsUpdateArgsContract(TypedDict):
    id: str
    unitId: NotRequired[str]
    type: NotRequired[Literal["lease", "ownership"]]
    parties: NotRequired[list[ContractsUpdateArgsContractPartiesItem]]
    startDate: NotRequired[str]
    endDate: NotRequired[str | None]
    rent: NotRequired[ContractsUpdateArgsContractRent | None]
    rentType: NotRequired[Literal["standard", "index", "graduated"] | None]
    deposit: NotRequired[ContractsUpdateArgsContractDeposit | None]
    noticePeriodMonths: NotRequired[int | None]
    vatApplicable: NotRequired[bool | None]
    notes: NotRequired[str | None]
    version: NotRequired[int]


class ContractsUpdateArgs(TypedDict):
    contract: ContractsUpdateArgsContract


class ContractsUpsertArgsItemsItemPartiesItem(TypedDict):
    contactId: str
    role: Literal["tenant", "coTenant", "owner", "coOwner", "guarantor", "subtenant"]
    share: NotRequired[str]


class ContractsUpsertArgsItemsItemRent(TypedDict):
    baseRent: NotRequired[str]
    serviceChargeAdvance: NotRequired[str]
    heatingAdvance: NotRequired[str]
    otherAdvance: NotRequired[str]
    currency: NotRequired[Literal["EUR"]]


class ContractsUpsertArgsItemsItemDeposit(TypedDict):
    amount: NotRequired[str]
    type: NotRequired[Literal["cash", "bankGuarantee", "depositAccount", "suretyBond"]]
    paidAt: NotRequired[str]


class ContractsUpsertArgsItemsItem(TypedDict):
    alias: str
    unitId: str
    type: Literal["lease", "ownership"]
    parties: list[ContractsUpsertArgsItemsItemPartiesItem]
    startDate: str
    endDate: NotRequired[str]
    rent: NotRequired[ContractsUpsertArgsItemsItemRent]
    rentType: NotRequired[Literal["standard", "index", "graduated"]]
    deposit: NotRequired[ContractsUpsertArgsItemsItemDeposit]
    noticePeriodMonths: NotRequired[int]
    vatApplicable: NotRequired[bool]
    notes: NotRequired[str]


class ContractsUpsertArgs(TypedDict):
    items: list[ContractsUpsertArgsItemsItem]


class DocumentsDeleteArgs(TypedDict):
    document: str


class DocumentsListArgs(TypedDict):
    locationId: NotRequired[str]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class DocumentsRestoreArgs(TypedDict):
    document: str


class DocumentsShowArgs(TypedDict):
    document: str


class DocumentsTypemappingsArgs(TypedDict):
    pass


class DocumentsUpdateArgsDocument(TypedDict):
    id: str
    locationId: NotRequired[str]
    title: NotRequired[str | None]
    documentType: NotRequired[str | None]
    category: NotRequired[str | None]
    documentDate: NotRequired[str | None]
    visibility: NotRequired[Literal["internal", "portal"] | None]
    version: NotRequired[int]


class DocumentsUpdateArgs(TypedDict):
    document: DocumentsUpdateArgsDocument


class DocumentsUploadArgsResource(TypedDict):
    fileName: str
    contentType: NotRequired[str]
    content: str


class DocumentsUploadArgsDocument(TypedDict):
    title: NotRequired[str]
    documentType: NotRequired[str]
    category: NotRequired[str]
    documentDate: NotRequired[str]
    visibility: NotRequired[Literal["internal", "portal"]]


class DocumentsUploadArgs(TypedDict):
    locationId: str
    resource: DocumentsUploadArgsResource
    document: NotRequired[DocumentsUploadArgsDocument]


class DocumentsUploadsCreateArgsUploadsItemDocument(TypedDict):
    title: NotRequired[str]
    documentType: NotRequired[str]
    category: NotRequired[str]
    documentDate: NotRequired[str]
    visibility: NotRequired[Literal["internal", "portal"]]


class DocumentsUploadsCreateArgsUploadsItem(TypedDict):
    locationId: str
    fileName: str
    contentType: Literal["application/msword", "application/pdf", "application/vnd.ms-excel", "application/vnd.ms-outlook", "application/vnd.oasis.opendocument.spreadsheet", "application/vnd.oasis.opendocument.text", "application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/xml", "application/zip", "image/gif", "image/heic", "image/jpeg", "image/png", "image/tiff", "image/webp", "message/rfc822", "text/csv", "text/plain"]
    size: int
    document: NotRequired[DocumentsUploadsCreateArgsUploadsItemDocument]


class DocumentsUploadsCreateArgs(TypedDict):
    uploads: list[DocumentsUploadsCreateArgsUploadsItem]
    expiresIn: NotRequired[int]


class DocumentsUploadsProgressArgs(TypedDict):
    batch: str
    status: NotRequired[Literal["pending", "registered", "failed", "expired"]]
    limit: int
    offset: int


class ExportsCreateArgs(TypedDict):
    entityTypes: NotRequired[list[Literal["contact", "object", "bankAccountInfo", "advisor", "unitGroup", "objectAddress", "objectGroup", "post", "responsibility", "signatory", "uviDocument", "unit", "contract", "bankAccountUse", "directDebitMandate", "process", "inboundInvoice", "callRecord", "processUpdate", "document"]]]


class ExportsShowArgs(TypedDict):
    export: str
    id: NotRequired[str]


class InfoArgs(TypedDict):
    pass


class ObjectaddressesCreateArgsObjectAddress(TypedDict):
    objectId: str
    street: str
    houseNumber: NotRequired[str]
    addition: NotRequired[str]
    postalCode: str
    city: str
    countryCode: NotRequired[str]
    type: NotRequired[Literal["main", "additional", "postal", "delivery"]]
    isPrimary: NotRequired[bool]


class ObjectaddressesCreateArgs(TypedDict):
    objectAddress: ObjectaddressesCreateArgsObjectAddress


class ObjectaddressesDeleteArgs(TypedDict):
    objectAddress: str


class ObjectaddressesListArgs(TypedDict):
    objectId: NotRequired[str]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class ObjectaddressesRestoreArgs(TypedDict):
    objectAddress: str


class ObjectaddressesShowArgs(TypedDict):
    objectAddress: str


class ObjectaddressesUpdateArgsObjectAddress(TypedDict):
    id: str
    street: NotRequired[str]
    houseNumber: NotRequired[str | None]
    addition: NotRequired[str | None]
    postalCode: NotRequired[str]
    city: NotRequired[str]
    countryCode: NotRequired[str | None]
    type: NotRequired[Literal["main", "additional", "postal", "delivery"] | None]
    isPrimary: NotRequired[bool | None]
    version: NotRequired[int]


class ObjectaddressesUpdateArgs(TypedDict):
    objectAddress: ObjectaddressesUpdateArgsObjectAddress


class ObjectaddressesUpsertArgsItemsItem(TypedDict):
    alias: str
    objectId: str
    street: str
    houseNumber: NotRequired[str]
    addition: NotRequired[str]
    postalCode: str
    city: str
    countryCode: NotRequired[str]
    type: NotRequired[Literal["main", "additional", "postal", "delivery"]]
    isPrimary: NotRequired[bool]


class ObjectaddressesUpsertArgs(TypedDict):
    items: list[ObjectaddressesUpsertArgsItemsItem]


class ObjectgroupsCreateArgsObjectGroup(TypedDict):
    name: str
    description: NotRequired[str]
    objectIds: NotRequired[list[str]]
    type: NotRequired[Literal["portfolio", "owner", "region", "other"]]


class ObjectgroupsCreateArgs(TypedDict):
    objectGroup: ObjectgroupsCreateArgsObjectGroup


class ObjectgroupsDeleteArgs(TypedDict):
    objectGroup: str


class ObjectgroupsRestoreArgs(TypedDict):
    objectGroup: str


class ObjectgroupsShowArgs(TypedDict):
    objectGroup: str


class ObjectgroupsUpdateArgsObjectGroup(TypedDict):
    id: str
    name: NotRequired[str]
    description: NotRequired[str | None]
    objectIds: NotRequired[list[str] | None]
    type: NotRequired[Literal["portfolio", "owner", "region", "other"] | None]
    version: NotRequired[int]


class ObjectgroupsUpdateArgs(TypedDict):
    objectGroup: ObjectgroupsUpdateArgsObjectGroup


class ObjectgroupsUpsertArgsItemsItem(TypedDict):
    alias: str
    name: str
    description: NotRequired[str]
    objectIds: NotRequired[list[str]]
    type: NotRequired[Literal["portfolio", "owner", "region", "other"]]


class ObjectgroupsUpsertArgs(TypedDict):
    items: list[ObjectgroupsUpsertArgsItemsItem]


class ObjectsArgs(TypedDict):
    updatedSince: NotRequired[str]
    limit: NotRequired[int]
    offset: NotRequired[int]


class ObjectsCreateArgsObjectAddress(TypedDict):
    street: str
    houseNumber: NotRequired[str]
    addition: NotRequired[str]
    postalCode: str
    city: str
    countryCode: NotRequired[str]


class ObjectsCreateArgsObjectLandRegistry(TypedDict):
    court: NotRequired[str]
    district: NotRequired[str]
    sheet: NotRequired[str]
    parcel: NotRequired[str]


class ObjectsCreateArgsObjectEnergyCertificate(TypedDict):
    kind: NotRequired[Literal["demand", "consumption"]]
    value: NotRequired[str]
    efficiencyClass: NotRequired[Literal["A+", "A", "B", "C", "D", "E", "F", "G", "H"]]
    validUntil: NotRequired[str]


class ObjectsCreateArgsObject(TypedDict):
    name: str
    number: NotRequired[str]
    type: Literal["weg", "rental", "mixed", "commercial"]
    address: NotRequired[ObjectsCreateArgsObjectAddress]
    constructionYear: NotRequired[int]
    modernisationYear: NotRequired[int]
    plotArea: NotRequired[str]
    livingArea: NotRequired[str]
    commercialArea: NotRequired[str]
    landRegistry: NotRequired[ObjectsCreateArgsObjectLandRegistry]
    heatingType: NotRequired[Literal["gas", "oil", "districtHeating", "heatPump", "electric", "wood", "solar", "other"]]
    energyCertificate: NotRequired[ObjectsCreateArgsObjectEnergyCertificate]
    managementStart: NotRequired[str]
    managementEnd: NotRequired[str]
    notes: NotRequired[str]


class ObjectsCreateArgs(TypedDict):
    object: ObjectsCreateArgsObject


class ObjectsDeleteArgs(TypedDict):
    object: str


class ObjectsRestoreArgs(TypedDict):
    object: str


class ObjectsShowArgs(TypedDict):
    object: str


class ObjectsUpdateArgsObjectAddress(TypedDict):
    street: str
    houseNumber: NotRequired[str]
    addition: NotRequired[str]
    postalCode: str
    city: str
    countryCode: NotRequired[str]


class ObjectsUpdateArgsObjectLandRegistry(TypedDict):
    court: NotRequired[str]
    district: NotRequired[str]
    sheet: NotRequired[str]
    parcel: NotRequired[str]


class ObjectsUpdateArgsObjectEnergyCertificate(TypedDict):
    kind: NotRequired[Literal["demand", "consumption"]]
    value: NotRequired[str]
    efficiencyClass: NotRequired[Literal["A+", "A", "B", "C", "D", "E", "F", "G", "H"]]
    validUntil: NotRequired[str]


class ObjectsUpdateArgsObject(TypedDict):
    id: str
    name: NotRequired[str]
    number: NotRequired[str | None]
    type: NotRequired[Literal["weg", "rental", "mixed", "commercial"]]
    address: NotRequired[ObjectsUpdateArgsObjectAddress | None]
    constructionYear: NotRequired[int | None]
    modernisationYear: NotRequired[int | None]
    plotArea: NotRequired[str | None]
    livingArea: NotRequired[str | None]
    commercialArea: NotRequired[str | None]
    landRegistry: NotRequired[ObjectsUpdateArgsObjectLandRegistry | None]
    heatingType: NotRequired[Literal["gas", "oil", "districtHeating", "heatPump", "electric", "wood", "solar", "other"] | None]
    energyCertificate: NotRequired[ObjectsUpdateArgsObjectEnergyCertificate | None]
    managementStart: NotRequired[str | None]
    managementEnd: NotRequired[str | None]
    notes: NotRequired[str | None]
    version: NotRequired[int]


class ObjectsUpdateArgs(TypedDict):
    object: ObjectsUpdateArgsObject


class ObjectsUpsertArgsItemsItemAddress(TypedDict):
    street: str
    houseNumber: NotRequired[str]
    addition: NotRequired[str]
    postalCode: str
    city: str
    countryCode: NotRequired[str]


class ObjectsUpsertArgsItemsItemLandRegistry(TypedDict):
    court: NotRequired[str]
    district: NotRequired[str]
    sheet: NotRequired[str]
    parcel: NotRequired[str]


class ObjectsUpsertArgsItemsItemEnergyCertificate(TypedDict):
    kind: NotRequired[Literal["demand", "consumption"]]
    value: NotRequired[str]
    efficiencyClass: NotRequired[Literal["A+", "A", "B", "C", "D", "E", "F", "G", "H"]]
    validUntil: NotRequired[str]


class ObjectsUpsertArgsItemsItem(TypedDict):
    alias: str
    name: str
    number: NotRequired[str]
    type: Literal["weg", "rental", "mixed", "commercial"]
    address: NotRequired[ObjectsUpsertArgsItemsItemAddress]
    constructionYear: NotRequired[int]
    modernisationYear: NotRequired[int]
    plotArea: NotRequired[str]
    livingArea: NotRequired[str]
    commercialArea: NotRequired[str]
    landRegistry: NotRequired[ObjectsUpsertArgsItemsItemLandRegistry]
    heatingType: NotRequired[Literal["gas", "oil", "districtHeating", "heatPump", "electric", "wood", "solar", "other"]]
    energyCertificate: NotRequired[ObjectsUpsertArgsItemsItemEnergyCertificate]
    managementStart: NotRequired[str]
    managementEnd: NotRequired[str]
    notes: NotRequired[str]


class ObjectsUpsertArgs(TypedDict):
    items: list[ObjectsUpsertArgsItemsItem]


class OpenapiSpecArgs(TypedDict):
    pass


class PostsCreateArgsPost(TypedDict):
    objectId: str
    title: str
    body: NotRequired[str]
    category: NotRequired[Literal["announcement", "maintenance", "event", "emergency", "general"]]
    audience: NotRequired[Literal["allResidents", "owners", "tenants"]]
    visibleFrom: NotRequired[str]
    visibleUntil: NotRequired[str]


class PostsCreateArgs(TypedDict):
    post: PostsCreateArgsPost


class PostsDeleteArgs(TypedDict):
    post: str


class PostsRestoreArgs(TypedDict):
    post: str


class PostsShowArgs(TypedDict):
    post: str


class PostsUpdateArgsPost(TypedDict):
    id: str
    objectId: NotRequired[str]
    title: NotRequired[str]
    body: NotRequired[str | None]
    category: NotRequired[Literal["announcement", "maintenance", "event", "emergency", "general"] | None]
    audience: NotRequired[Literal["allResidents", "owners", "tenants"] | None]
    visibleFrom: NotRequired[str | None]
    visibleUntil: NotRequired[str | None]
    version: NotRequired[int]


class PostsUpdateArgs(TypedDict):
    post: PostsUpdateArgsPost


class PostsUpsertArgsItemsItem(TypedDict):
    alias: str
    objectId: str
    title: str
    body: NotRequired[str]
    category: NotRequired[Literal["announcement", "maintenance", "event", "emergency", "general"]]
    audience: NotRequired[Literal["allResidents", "owners", "tenants"]]
    visibleFrom: NotRequired[str]
    visibleUntil: NotRequired[str]


class PostsUpsertArgs(TypedDict):
    items: list[PostsUpsertArgsItemsItem]


class ProcessesCreateArgsProcess(TypedDict):
    contractId: NotRequired[str]
    title: str
    description: NotRequired[str]
    status: NotRequired[Literal["open", "inProgress", "waiting", "done", "cancelled"]]
    priority: NotRequired[Literal["low", "normal", "high", "urgent"]]
    category: NotRequired[Literal["repair", "maintenance", "damage", "complaint", "inquiry", "meeting", "accounting", "legal", "other"]]
    isArchived: NotRequired[bool]
    dueDate: NotRequired[str]
    reportedById: NotRequired[str]
    assigneeId: NotRequired[str]


class ProcessesCreateArgs(TypedDict):
    process: ProcessesCreateArgsProcess
    object: str


class ProcessesDeleteArgs(TypedDict):
    process: str


class ProcessesListArgs(TypedDict):
    isArchived: NotRequired[bool]
    object: NotRequired[str]
    contract: NotRequired[str]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class ProcessesRestoreArgs(TypedDict):
    process: str


class ProcessesShowArgs(TypedDict):
    process: str


class ProcessesUpdateArgsProcess(TypedDict):
    id: str
    contractId: NotRequired[str | None]
    title: NotRequired[str]
    description: NotRequired[str | None]
    status: NotRequired[Literal["open", "inProgress", "waiting", "done", "cancelled"] | None]
    priority: NotRequired[Literal["low", "normal", "high", "urgent"] | None]
    category: NotRequired[Literal["repair", "maintenance", "damage", "complaint", "inquiry", "meeting", "accounting", "legal", "other"] | None]
    isArchived: NotRequired[bool | None]
    dueDate: NotRequired[str | None]
    reportedById: NotRequired[str | None]
    assigneeId: NotRequired[str | None]
    version: NotRequired[int]


class ProcessesUpdateArgs(TypedDict):
    process: ProcessesUpdateArgsProcess


class ProcessesUpdatesCreateArgsUpdate(TypedDict):
    text: str
    type: NotRequired[Literal["note", "statusChange", "email", "letter", "call", "visit"]]
    authorId: NotRequired[str]
    visibility: NotRequired[Literal["internal", "portal"]]
    occurredAt: NotRequired[str]


class ProcessesUpdatesCreateArgs(TypedDict):
    update: ProcessesUpdatesCreateArgsUpdate
    process: str


class ProcessesUpdatesDeleteArgs(TypedDict):
    update: str


class ProcessesUpdatesListArgs(TypedDict):
    process: str
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class ProcessesUpdatesRestoreArgs(TypedDict):
    update: str


class ProcessesUpdatesShowArgs(TypedDict):
    update: str


class ProcessesUpdatesUpdateArgsUpdate(TypedDict):
    id: str
    text: NotRequired[str]
    type: NotRequired[Literal["note", "statusChange", "email", "letter", "call", "visit"] | None]
    authorId: NotRequired[str | None]
    visibility: NotRequired[Literal["internal", "portal"] | None]
    occurredAt: NotRequired[str | None]
    version: NotRequired[int]


class ProcessesUpdatesUpdateArgs(TypedDict):
    update: ProcessesUpdatesUpdateArgsUpdate


class ProcessesUpdatesUpsertArgsItemsItem(TypedDict):
    alias: str
    text: str
    type: NotRequired[Literal["note", "statusChange", "email", "letter", "call", "visit"]]
    authorId: NotRequired[str]
    visibility: NotRequired[Literal["internal", "portal"]]
    occurredAt: NotRequired[str]
    processId: str


class ProcessesUpdatesUpsertArgs(TypedDict):
    items: list[ProcessesUpdatesUpsertArgsItemsItem]


class ProcessesUpsertArgsItemsItem(TypedDict):
    alias: str
    contractId: NotRequired[str]
    title: str
    description: NotRequired[str]
    status: NotRequired[Literal["open", "inProgress", "waiting", "done", "cancelled"]]
    priority: NotRequired[Literal["low", "normal", "high", "urgent"]]
    category: NotRequired[Literal["repair", "maintenance", "damage", "complaint", "inquiry", "meeting", "accounting", "legal", "other"]]
    isArchived: NotRequired[bool]
    dueDate: NotRequired[str]
    reportedById: NotRequired[str]
    assigneeId: NotRequired[str]
    objectId: str


class ProcessesUpsertArgs(TypedDict):
    items: list[ProcessesUpsertArgsItemsItem]


class ResponsibilitiesCreateArgsResponsibility(TypedDict):
    categoryId: Literal["propertyManager", "accountant", "caretaker", "technician", "cleaning", "winterService", "gardening", "elevator", "heating", "insurance", "other"]
    validFrom: NotRequired[str]
    validTo: NotRequired[str]
    notes: NotRequired[str]


class ResponsibilitiesCreateArgs(TypedDict):
    responsibility: ResponsibilitiesCreateArgsResponsibility
    contact: str
    object: str


class ResponsibilitiesDeleteArgs(TypedDict):
    responsibility: str


class ResponsibilitiesListArgs(TypedDict):
    contactId: NotRequired[str]
    objectId: NotRequired[str]
    categoryId: NotRequired[Literal["propertyManager", "accountant", "caretaker", "technician", "cleaning", "winterService", "gardening", "elevator", "heating", "insurance", "other"]]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class ResponsibilitiesRestoreArgs(TypedDict):
    responsibility: str


class ResponsibilitiesShowArgs(TypedDict):
    responsibility: str


class ResponsibilitiesUpdateArgsResponsibility(TypedDict):
    id: str
    contactId: NotRequired[str]
    objectId: NotRequired[str]
    categoryId: NotRequired[Literal["propertyManager", "accountant", "caretaker", "technician", "cleaning", "winterService", "gardening", "elevator", "heating", "insurance", "other"]]
    validFrom: NotRequired[str | None]
    validTo: NotRequired[str | None]
    notes: NotRequired[str | None]
    version: NotRequired[int]


class ResponsibilitiesUpdateArgs(TypedDict):
    responsibility: ResponsibilitiesUpdateArgsResponsibility


class ResponsibilitiesUpsertArgsItemsItem(TypedDict):
    alias: str
    categoryId: Literal["propertyManager", "accountant", "caretaker", "technician", "cleaning", "winterService", "gardening", "elevator", "heating", "insurance", "other"]
    validFrom: NotRequired[str]
    validTo: NotRequired[str]
    notes: NotRequired[str]
    contactId: str
    objectId: str


class ResponsibilitiesUpsertArgs(TypedDict):
    items: list[ResponsibilitiesUpsertArgsItemsItem]


class SearchArgs(TypedDict):
    query: str
    types: NotRequired[list[str]]
    objectId: NotRequired[str]
    limit: int
    offset: int


class SignatoriesCreateArgsSignatory(TypedDict):
    contactId: str
    objectId: NotRequired[str]
    role: Literal["managingDirector", "authorizedOfficer", "boardMember", "advisoryBoard", "owner", "propertyManager", "other"]
    authority: NotRequired[Literal["sole", "joint"]]
    validFrom: NotRequired[str]
    validTo: NotRequired[str]
    notes: NotRequired[str]


class SignatoriesCreateArgs(TypedDict):
    signatory: SignatoriesCreateArgsSignatory


class SignatoriesDeleteArgs(TypedDict):
    signatory: str


class SignatoriesRestoreArgs(TypedDict):
    signatory: str


class SignatoriesShowArgs(TypedDict):
    signatory: str


class SignatoriesUpdateArgsSignatory(TypedDict):
    id: str
    contactId: NotRequired[str]
    objectId: NotRequired[str | None]
    role: NotRequired[Literal["managingDirector", "authorizedOfficer", "boardMember", "advisoryBoard", "owner", "propertyManager", "other"]]
    authority: NotRequired[Literal["sole", "joint"] | None]
    validFrom: NotRequired[str | None]
    validTo: NotRequired[str | None]
    notes: NotRequired[str | None]
    version: NotRequired[int]


class SignatoriesUpdateArgs(TypedDict):
    signatory: SignatoriesUpdateArgsSignatory


class SignatoriesUpsertArgsItemsItem(TypedDict):
    alias: str
    contactId: str
    objectId: NotRequired[str]
    role: Literal["managingDirector", "authorizedOfficer", "boardMember", "advisoryBoard", "owner", "propertyManager", "other"]
    authority: NotRequired[Literal["sole", "joint"]]
    validFrom: NotRequired[str]
    validTo: NotRequired[str]
    notes: NotRequired[str]


class SignatoriesUpsertArgs(TypedDict):
    items: list[SignatoriesUpsertArgsItemsItem]


class SignupArgs(TypedDict):
    companyName: str
    email: str
    agentName: str
    name: NotRequired[str]


class SignupConfirmArgs(TypedDict):
    email: str
    code: str


class StatusArgs(TypedDict):
    pass


class TenantArgs(TypedDict):
    pass


class UnitgroupsCreateArgsUnitGroup(TypedDict):
    objectId: str
    name: str
    type: NotRequired[Literal["building", "staircase", "floor", "garage", "other"]]
    notes: NotRequired[str]


class UnitgroupsCreateArgs(TypedDict):
    unitGroup: UnitgroupsCreateArgsUnitGroup


class UnitgroupsDeleteArgs(TypedDict):
    unitGroup: str


class UnitgroupsListforobjectArgs(TypedDict):
    object: str
    updatedSince: NotRequired[str]
    limit: NotRequired[int]
    offset: NotRequired[int]


class UnitgroupsRestoreArgs(TypedDict):
    unitGroup: str


class UnitgroupsShowArgs(TypedDict):
    unitGroup: str


class UnitgroupsUpdateArgsUnitGroup(TypedDict):
    id: str
    name: NotRequired[str]
    type: NotRequired[Literal["building", "staircase", "floor", "garage", "other"] | None]
    notes: NotRequired[str | None]
    version: NotRequired[int]


class UnitgroupsUpdateArgs(TypedDict):
    unitGroup: UnitgroupsUpdateArgsUnitGroup


class UnitgroupsUpsertArgsItemsItem(TypedDict):
    alias: str
    objectId: str
    name: str
    type: NotRequired[Literal["building", "staircase", "floor", "garage", "other"]]
    notes: NotRequired[str]


class UnitgroupsUpsertArgs(TypedDict):
    items: list[UnitgroupsUpsertArgsItemsItem]


class UnitsArgs(TypedDict):
    objectId: NotRequired[str]
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class UnitsCreateArgsUnit(TypedDict):
    objectId: str
    unitGroupId: NotRequired[str]
    number: str
    type: Literal["apartment", "commercial", "parking", "storage", "other"]
    floor: NotRequired[int]
    position: NotRequired[str]
    area: NotRequired[str]
    rooms: NotRequired[str]
    coOwnershipShare: NotRequired[str]
    coOwnershipBase: NotRequired[int]
    heatingArea: NotRequired[str]
    notes: NotRequired[str]


class UnitsCreateArgs(TypedDict):
    unit: UnitsCreateArgsUnit


class UnitsDeleteArgs(TypedDict):
    unit: str


class UnitsRestoreArgs(TypedDict):
    unit: str


class UnitsShowArgs(TypedDict):
    unit: str


class UnitsUpdateArgsUnit(TypedDict):
    id: str
    unitGroupId: NotRequired[str | None]
    number: NotRequired[str]
    type: NotRequired[Literal["apartment", "commercial", "parking", "storage", "other"]]
    floor: NotRequired[int | None]
    position: NotRequired[str | None]
    area: NotRequired[str | None]
    rooms: NotRequired[str | None]
    coOwnershipShare: NotRequired[str | None]
    coOwnershipBase: NotRequired[int | None]
    heatingArea: NotRequired[str | None]
    notes: NotRequired[str | None]
    version: NotRequired[int]


class UnitsUpdateArgs(TypedDict):
    unit: UnitsUpdateArgsUnit


class UnitsUpsertArgsItemsItem(TypedDict):
    alias: str
    objectId: str
    unitGroupId: NotRequired[str]
    number: str
    type: Literal["apartment", "commercial", "parking", "storage", "other"]
    floor: NotRequired[int]
    position: NotRequired[str]
    area: NotRequired[str]
    rooms: NotRequired[str]
    coOwnershipShare: NotRequired[str]
    coOwnershipBase: NotRequired[int]
    heatingArea: NotRequired[str]
    notes: NotRequired[str]


class UnitsUpsertArgs(TypedDict):
    items: list[UnitsUpsertArgsItemsItem]


class UviDeleteArgs(TypedDict):
    uviDocument: str


class UviListArgs(TypedDict):
    object: str
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class UviRestoreArgs(TypedDict):
    uviDocument: str


class UviShowArgs(TypedDict):
    uviDocument: str


class UviUpdateArgsUviDocument(TypedDict):
    id: str
    categories: NotRequired[list[Literal["heating", "hotWater", "coldWater"]]]
    periodStart: NotRequired[str]
    periodEnd: NotRequired[str]
    title: NotRequired[str | None]
    visibility: NotRequired[Literal["internal", "portal"] | None]
    version: NotRequired[int]


class UviUpdateArgs(TypedDict):
    uviDocument: UviUpdateArgsUviDocument


class UviUploadArgsData(TypedDict):
    objectId: str
    categories: list[Literal["heating", "hotWater", "coldWater"]]
    periodStart: str
    periodEnd: str
    title: NotRequired[str]
    visibility: NotRequired[Literal["internal", "portal"]]


class UviUploadArgsResource(TypedDict):
    fileName: str
    contentType: NotRequired[str]
    content: str


class UviUploadArgs(TypedDict):
    data: UviUploadArgsData
    resource: UviUploadArgsResource


class VersionArgs(TypedDict):
    pass


class WebhooksCreateArgs(TypedDict):
    name: str
    url: str
    events: list[str]
    authorizationHeader: NotRequired[str]
    enabled: NotRequired[bool]
    description: NotRequired[str]
    skipOwnChanges: NotRequired[bool]


class WebhooksDeleteArgs(TypedDict):
    webhook: str


class WebhooksDeliveriesListArgs(TypedDict):
    webhook: str
    status: NotRequired[Literal["pending", "delivered", "failed", "superseded"]]
    eventType: NotRequired[str]
    limit: int
    offset: int


class WebhooksDeliveriesRecoverArgs(TypedDict):
    webhook: str
    since: str


class WebhooksDeliveriesRetryArgs(TypedDict):
    webhook: str
    delivery: str


class WebhooksEventTypesArgs(TypedDict):
    pass


class WebhooksListArgs(TypedDict):
    updatedSince: NotRequired[str]
    limit: int
    offset: int


class WebhooksRestoreArgs(TypedDict):
    webhook: str


class WebhooksSecretRotateArgs(TypedDict):
    webhook: str


class WebhooksShowArgs(TypedDict):
    webhook: str


class WebhooksTestArgs(TypedDict):
    webhook: str


class WebhooksUpdateArgsWebhook(TypedDict):
    id: str
    name: NotRequired[str]
    url: NotRequired[str]
    events: NotRequired[list[str]]
    enabled: NotRequired[bool | None]
    description: NotRequired[str | None]
    skipOwnChanges: NotRequired[bool | None]
    authorizationHeader: NotRequired[str | None]
    version: NotRequired[int]


class WebhooksUpdateArgs(TypedDict):
    webhook: WebhooksUpdateArgsWebhook
