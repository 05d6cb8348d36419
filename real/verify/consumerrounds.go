package verify

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"outboxlab/lang"
)

// consumerMoment is what a consumer round's fault is aimed at: the n-th
// offset commit to arrive at the broker from a consumer process, the n-th
// ledger row a consumer writes (held in its open transaction), or the
// n-th event the lab's relay publishes.
type consumerMoment int

const (
	atCommit consumerMoment = iota
	atEffect
	atPublish
)

func (m consumerMoment) String() string {
	return [...]string{"offset commit", "effect", "publication"}[m]
}

// The faults of the consumer rounds (CONSUMERS.md).
const (
	KillAfterEffect    FaultKind = "kill-after-effect"
	KillBeforeEffect   FaultKind = "kill-before-effect"
	DeliveredTwice     FaultKind = "delivered-twice"
	PublishedTwice     FaultKind = "published-twice"
	Reorder            FaultKind = "reorder"
	Gap                FaultKind = "gap"
	Poison             FaultKind = "poison"
	UnknownVersion     FaultKind = "unknown-version"
	ConsumerStall      FaultKind = "stall"
	Rebalance          FaultKind = "rebalance"
	ConsumerConnKilled FaultKind = "db-connection-killed"
	FetchRefused       FaultKind = "fetch-refused"
)

// consumerFaultDef is a consumer fault kind's entry: what it does, in
// both languages, how many instances it needs, its moment, and the
// occurrence of it the standard round aims at. What it does is the
// driver's (consumerdriver.go), by kind.
type consumerFaultDef struct {
	kind      FaultKind
	text      lang.Text
	instances int
	moment    consumerMoment
	at        int
}

var consumerFaultDefs = []consumerFaultDef{
	{KillAfterEffect, lang.Text{
		EN: "SIGKILL the sender as its offset commit arrives: its effects are committed, the commit never reaches the broker; the instance restarts",
		DE: "SIGKILL für den Absender, sobald sein Offset-Commit ankommt: seine Effekte sind committet, der Commit erreicht den Broker nie; die Instanz startet neu"},
		2, atCommit, 2},
	{KillBeforeEffect, lang.Text{
		EN: "SIGKILL a consumer whose transaction has written an effect and not committed it, once an offset commit passes its record or 6 s later",
		DE: "SIGKILL für einen Consumer, dessen Transaktion einen Effekt geschrieben und nicht committet hat, sobald ein Offset-Commit über seinen Datensatz hinausgeht, oder 6 s später"},
		2, atEffect, 3},
	{DeliveredTwice, lang.Text{
		EN: "the broker answers offset commits as stored and loses them, one past each partition's kept offset at least, while an instance joins: the partitions that move are read again from the old offsets",
		DE: "der Broker beantwortet Offset-Commits als gespeichert und verliert sie, mindestens einen über den behaltenen Offset jeder Partition hinaus, während eine Instanz hinzukommt: die Partitionen, die wandern, werden ab den alten Offsets erneut gelesen"},
		2, atCommit, 2},
	{PublishedTwice, lang.Text{
		EN: "the relay publishes an event, and the same event again a second later (it died after the send, before SENT)",
		DE: "der Relay veröffentlicht ein Ereignis und dasselbe Ereignis eine Sekunde später noch einmal (er starb nach dem Senden, vor SENT)"},
		2, atPublish, 2},
	{Reorder, lang.Text{
		EN: "the relay publishes an order's amendment before the order's acceptance",
		DE: "der Relay veröffentlicht die Änderung einer Bestellung vor ihrer Annahme"},
		2, atPublish, 4},
	{Gap, lang.Text{
		EN: "the relay publishes an order's acceptance 1.5 s late, after its amendment: a gap the consumer must wait out",
		DE: "der Relay veröffentlicht die Annahme einer Bestellung 1,5 s zu spät, nach ihrer Änderung: eine Lücke, die der Consumer abwarten muss"},
		2, atPublish, 4},
	{Poison, lang.Text{
		EN: "a record whose value is no event (cut off JSON) among an order's events, then an amount not in its currency's format (12.345 EUR) and a currency not in the contract (GBP): dead letters, never billed, and the consumer goes on",
		DE: "ein Datensatz, dessen Wert kein Ereignis ist (abgeschnittenes JSON), zwischen den Ereignissen einer Bestellung, dann ein Betrag nicht im Format seiner Währung (12.345 EUR) und eine Währung, die der Vertrag nicht kennt (GBP): Dead Letters, nie abgerechnet, und der Consumer macht weiter"},
		2, atPublish, 3},
	{UnknownVersion, lang.Text{
		EN: "a record of a contract version the consumer cannot know (OrderAccepted version 3), then one of an event type it cannot know (OrderRefunded): dead letters, never applied, never skipped without a trace",
		DE: "ein Datensatz einer Vertragsversion, die der Consumer nicht kennen kann (OrderAccepted Version 3), dann einer eines Ereignistyps, den er nicht kennen kann (OrderRefunded): Dead Letters, nie angewendet, nie spurlos übersprungen"},
		2, atPublish, 3},
	{ConsumerStall, lang.Text{
		EN: "SIGSTOP a consumer whose transaction has written an effect, past the session timeout, until another instance took its partitions; then SIGCONT: the zombie's late commit must not double an effect",
		DE: "SIGSTOP für einen Consumer, dessen Transaktion einen Effekt geschrieben hat, länger als das Session-Timeout, bis eine andere Instanz seine Partitionen übernommen hat; dann SIGCONT: der späte Commit des Zombies darf keinen Effekt verdoppeln"},
		2, atEffect, 3},
	{Rebalance, lang.Text{
		EN: "an instance joins the group under load and takes partitions over; 1.5 s later it leaves for good (SIGTERM, in a burst of records) and they go back to an instance that held them; every open order is amended as it joins, while it is there, as it leaves and after",
		DE: "eine Instanz tritt der Gruppe unter Last bei und übernimmt Partitionen; 1,5 s später verlässt sie sie für immer (SIGTERM, mitten in einer Salve von Datensätzen), und sie gehen an eine Instanz zurück, die sie vorher hielt; jede offene Bestellung wird bei ihrem Beitritt, während sie da ist, bei ihrem Abschied und danach geändert"},
		2, atCommit, 2},
	{ConsumerConnKilled, lang.Text{
		EN: "pg_terminate_backend on a consumer's database connections while its transaction has written an effect",
		DE: "pg_terminate_backend auf die Datenbankverbindungen eines Consumers, während seine Transaktion einen Effekt geschrieben hat"},
		2, atEffect, 3},
	{FetchRefused, lang.Text{
		EN: "the broker refuses every fetch for 3 s (NOT_LEADER_OR_FOLLOWER, as in a leader election): the consumer polls on",
		DE: "der Broker lehnt 3 s lang jedes Fetch ab (NOT_LEADER_OR_FOLLOWER, wie bei einer Leader-Wahl): der Consumer pollt weiter"},
		2, atCommit, 2},
}

// ConsumerFaultKinds lists every fault kind of the consumer rounds, in
// the order of the registry.
func ConsumerFaultKinds() []FaultKind {
	var out []FaultKind
	for _, d := range consumerFaultDefs {
		out = append(out, d.kind)
	}
	return out
}

func consumerDefOf(k FaultKind) consumerFaultDef {
	i := slices.IndexFunc(consumerFaultDefs, func(d consumerFaultDef) bool { return d.kind == k })
	if i < 0 {
		panic("verify: no consumer fault " + string(k)) // FaultKind values come from the registry
	}
	return consumerFaultDefs[i]
}

// DescribeConsumerFault says what a consumer fault kind does, in l.
func DescribeConsumerFault(k FaultKind, l lang.Lang) string { return consumerDefOf(k).text.In(l) }

// ConsumerRounds returns the consumer rounds: three instances without a
// fault, one round for each fault kind, then random rounds of two or
// three faults each, drawn from seed.
func ConsumerRounds(seed uint64, random int) []Round {
	rounds := []Round{{Name: "three-instances", Instances: 3, Seed: seed, Commands: 24, Consumer: true, Text: lang.Text{
		EN: "three instances in one group, no fault: each event's effect once, in each order's sequence",
		DE: "drei Instanzen in einer Gruppe, keine Störung: der Effekt jedes Ereignisses einmal, in der Reihenfolge jeder Bestellung"}}}
	for _, d := range consumerFaultDefs {
		rounds = append(rounds, Round{Name: string(d.kind), Text: d.text, Instances: d.instances,
			Faults: []Fault{{Kind: d.kind, At: d.at}}, Seed: seed, Commands: 12, Consumer: true})
	}
	for i := 1; i <= random; i++ {
		rounds = append(rounds, RandomConsumerRound(seed, i))
	}
	return rounds
}

// RandomConsumerRound draws the i-th random consumer round of seed: two
// or three instances, two or three faults of different kinds, each aimed
// at one of the first five occurrences of its moment (the publications
// from the third on), and a workload of its own.
func RandomConsumerRound(seed uint64, i int) Round {
	rng := rand.New(rand.NewPCG(seed, 0xc0+uint64(i)))
	r := Round{Name: fmt.Sprintf("random-%d", i), Instances: 2 + rng.IntN(2), Seed: seed + uint64(i), Commands: 10 + rng.IntN(10), Consumer: true}
	kinds := rng.Perm(len(consumerFaultDefs))
	var said []string
	for j := range 2 + rng.IntN(2) {
		d := consumerFaultDefs[kinds[j]]
		f := Fault{Kind: d.kind, At: 1 + rng.IntN(5)}
		if d.moment == atPublish {
			f.At += 2
		}
		r.Faults = append(r.Faults, f)
		said = append(said, f.String())
	}
	r.Text = lang.Textf(lang.Text{EN: "%d instances, faults drawn from the seed: %s", DE: "%d Instanzen, Störungen aus dem Seed gezogen: %s"},
		r.Instances, strings.Join(said, ", "))
	return r
}
