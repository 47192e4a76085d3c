// Command capi-serverless-oracle answers questions about Go semantics that capi-serverless re-implements in
// TypeScript, using Go's own libraries and Cluster API's own code: text/template with sprig's hermetic functions,
// regexp (variable `pattern`, sprig's and CEL's regex functions), strconv quoting, net/url parsing, time.Duration text, closed CEL expressions in the Kubernetes base CEL environment
// (k8s.io/apiserver/pkg/cel/environment), and ClusterClass variable validation and defaulting
// (sigs.k8s.io/cluster-api/internal/topology/variables), and upstream's admission webhooks for ExtensionConfigs and
// ClusterClasses (sigs.k8s.io/cluster-api/core/webhooks/admission, feature gates ClusterTopology and RuntimeSDK on). It reads one JSON request per line on stdin and writes one
// JSON response per line on stdout, in order, so tests can keep one process and ask thousands of questions.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/Masterminds/sprig/v3"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/environment"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/core/webhooks/admission"
	"sigs.k8s.io/cluster-api/feature"
	"sigs.k8s.io/cluster-api/internal/topology/variables"
)

type request struct {
	Op string `json:"op"`

	// template
	Name       string          `json:"name,omitempty"`
	Text       string          `json:"text,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	Functions  string          `json:"functions,omitempty"`
	MissingKey string          `json:"missingKey,omitempty"`

	// regexp
	Pattern     string   `json:"pattern,omitempty"`
	Inputs      []string `json:"inputs,omitempty"`
	Replacement string   `json:"replacement,omitempty"` // for ReplaceAllString and ReplaceAllLiteralString
	N           *int     `json:"n,omitempty"`           // for FindAllString and Split (default -1)

	// strconv: Quote and QuoteRune of each of Bytes (base64 in JSON, so any bytes), Unquote of each of Inputs
	Bytes [][]byte `json:"bytes,omitempty"`
	Runes []int32  `json:"runes,omitempty"`

	// url: url.Parse, or url.ParseRequestURI when RequestURI, of each of Inputs
	RequestURI bool `json:"requestURI,omitempty"`

	// duration: time.ParseDuration of each of Inputs; String and Round(RoundTo) of each of Durations (int64 nanoseconds
	// as decimal text, so JSON keeps every digit)
	Durations []string `json:"durations,omitempty"`
	RoundTo   string   `json:"roundTo,omitempty"`

	// cel: closed expressions evaluated in the Kubernetes base CEL environment
	Expressions []string `json:"expressions,omitempty"`

	// variables
	ClassVariables []clusterv1.ClusterClassVariable       `json:"classVariables,omitempty"`
	Values         []clusterv1.ClusterVariable            `json:"values,omitempty"`
	OldValues      []clusterv1.ClusterVariable            `json:"oldValues,omitempty"` // before an update: oldSelf of transition rules
	Definitions    []clusterv1.ClusterClassStatusVariable `json:"definitions,omitempty"`
	Overrides      bool                                   `json:"overrides,omitempty"`
	FieldPath      string                                 `json:"fieldPath,omitempty"`

	// admission: an ExtensionConfig or ClusterClass (v1beta2 JSON) for upstream's webhook
	Object json.RawMessage `json:"object,omitempty"`
}

type fieldError struct {
	Type    string `json:"type"`
	Field   string `json:"field"`
	Detail  string `json:"detail"`
	Message string `json:"message"`
}

type response struct {
	Error string `json:"error,omitempty"` // a malformed request or a panic in the oracle itself

	// template
	Output      *string `json:"output,omitempty"`
	InvalidUTF8 bool    `json:"invalidUTF8,omitempty"` // output is not valid UTF-8; OutputBytes holds the exact bytes
	OutputBytes []byte  `json:"outputBytes,omitempty"`
	Phase       string  `json:"phase,omitempty"` // parse or exec, when the template fails
	Detail      string  `json:"detail,omitempty"`

	// regexp
	CompileError    *string    `json:"compileError,omitempty"`
	Matches         []bool     `json:"matches,omitempty"`
	Find            []string   `json:"find,omitempty"`
	FindAll         [][]string `json:"findAll,omitempty"`
	Replaced        []string   `json:"replaced,omitempty"`
	ReplacedLiteral []string   `json:"replacedLiteral,omitempty"`
	Split           [][]string `json:"split,omitempty"`

	// cel
	Results []celResult `json:"results,omitempty"`

	// strconv
	Quoted      []string        `json:"quoted,omitempty"`
	QuotedRunes []string        `json:"quotedRunes,omitempty"`
	Unquoted    []unquoteResult `json:"unquoted,omitempty"`

	// url
	URLs []urlResult `json:"urls,omitempty"`

	// duration
	Parsed  []durationResult `json:"parsed,omitempty"`
	Strings []string         `json:"strings,omitempty"`
	Rounded []string         `json:"rounded,omitempty"`

	// variables
	FieldErrors []fieldError                `json:"fieldErrors,omitempty"`
	Defaulted   []clusterv1.ClusterVariable `json:"defaulted,omitempty"`

	// admission
	Admission *admissionResult `json:"admission,omitempty"`
}

// admissionResult is what upstream's webhook answers: allowed, or refused with the Status it returns (message,
// reason, code and the causes as apierrors.NewInvalid builds them), plus warnings; for defaulting the object after.
type admissionResult struct {
	Allowed  bool            `json:"allowed"`
	Message  string          `json:"message,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Code     int32           `json:"code,omitempty"`
	Causes   []statusCause   `json:"causes,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Object   json.RawMessage `json:"object,omitempty"`
}

type statusCause struct {
	Type    string `json:"type"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

func admissionAnswer(warnings []string, err error) response {
	res := &admissionResult{Allowed: err == nil, Warnings: warnings}
	if err != nil {
		status, ok := err.(apierrors.APIStatus)
		if !ok {
			return response{Error: "webhook returned a non-status error: " + err.Error()}
		}
		s := status.Status()
		res.Message, res.Reason, res.Code = s.Message, string(s.Reason), s.Code
		if s.Details != nil {
			for _, c := range s.Details.Causes {
				res.Causes = append(res.Causes, statusCause{Type: string(c.Type), Field: c.Field, Message: c.Message})
			}
		}
	}
	return response{Admission: res}
}

// enableGates turns on the gates capi-serverless always runs with (it serves topologies and the Runtime SDK).
func enableGates() {
	if err := feature.MutableGates.Set("ClusterTopology=true,RuntimeSDK=true"); err != nil {
		panic(err)
	}
}

func admitExtensionConfig(ctx context.Context, r request, mutate bool) response {
	enableGates()
	ec := &runtimev1.ExtensionConfig{}
	if err := json.Unmarshal(r.Object, ec); err != nil {
		return response{Error: "bad object: " + err.Error()}
	}
	webhook := &admission.ExtensionConfig{}
	if mutate {
		if err := webhook.Default(ctx, ec); err != nil {
			return response{Error: "default: " + err.Error()}
		}
		out, err := json.Marshal(ec)
		if err != nil {
			return response{Error: err.Error()}
		}
		return response{Admission: &admissionResult{Allowed: true, Object: out}}
	}
	warnings, err := webhook.ValidateCreate(ctx, ec)
	return admissionAnswer(warnings, err)
}

func admitClusterClass(ctx context.Context, r request) response {
	enableGates()
	cc := &clusterv1.ClusterClass{}
	if err := json.Unmarshal(r.Object, cc); err != nil {
		return response{Error: "bad object: " + err.Error()}
	}
	// NOTE: a create lists no Clusters, so the webhook needs no client.
	warnings, err := (&admission.ClusterClass{}).ValidateCreate(ctx, cc)
	return admissionAnswer(warnings, err)
}

func evalTemplate(r request) response {
	tpl := template.New(r.Name)
	if r.Functions != "builtin" {
		tpl = tpl.Funcs(sprig.HermeticTxtFuncMap())
	}
	if r.MissingKey != "" {
		tpl = tpl.Option("missingkey=" + r.MissingKey)
	}
	if _, err := tpl.Parse(r.Text); err != nil {
		return response{Phase: "parse", Detail: err.Error()}
	}
	// Upstream decodes variables with encoding/json into interface{} (numbers become float64).
	var data interface{}
	if len(r.Data) > 0 {
		if err := json.Unmarshal(r.Data, &data); err != nil {
			return response{Error: "bad data: " + err.Error()}
		}
	}
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, data); err != nil {
		return response{Phase: "exec", Detail: err.Error()}
	}
	out := buf.String()
	if !utf8.ValidString(out) {
		return response{Output: &out, InvalidUTF8: true, OutputBytes: buf.Bytes()}
	}
	return response{Output: &out}
}

func matchRegexp(r request) response {
	// kube-openapi's pattern validator: regexp.Compile, then MatchString.
	re, err := regexp.Compile(r.Pattern)
	if err != nil {
		msg := err.Error()
		return response{CompileError: &msg}
	}
	n := -1
	if r.N != nil {
		n = *r.N
	}
	res := response{
		Matches:         make([]bool, len(r.Inputs)),
		Find:            make([]string, len(r.Inputs)),
		FindAll:         make([][]string, len(r.Inputs)),
		Replaced:        make([]string, len(r.Inputs)),
		ReplacedLiteral: make([]string, len(r.Inputs)),
		Split:           make([][]string, len(r.Inputs)),
	}
	for i, s := range r.Inputs {
		res.Matches[i] = re.MatchString(s)
		res.Find[i] = re.FindString(s)
		res.FindAll[i] = append([]string{}, re.FindAllString(s, n)...)
		res.Replaced[i] = re.ReplaceAllString(s, r.Replacement)
		res.ReplacedLiteral[i] = re.ReplaceAllLiteralString(s, r.Replacement)
		res.Split[i] = append([]string{}, re.Split(s, n)...)
	}
	return res
}

type unquoteResult struct {
	Value []byte `json:"value"` // the bytes, base64 in JSON
	Error string `json:"error,omitempty"`
}

func strconvAnswer(r request) response {
	res := response{Quoted: []string{}, QuotedRunes: []string{}, Unquoted: []unquoteResult{}}
	for _, b := range r.Bytes {
		res.Quoted = append(res.Quoted, strconv.Quote(string(b)))
	}
	for _, c := range r.Runes {
		res.QuotedRunes = append(res.QuotedRunes, strconv.QuoteRune(c))
	}
	for _, s := range r.Inputs {
		v, err := strconv.Unquote(s)
		if err != nil {
			res.Unquoted = append(res.Unquoted, unquoteResult{Value: []byte{}, Error: err.Error()})
		} else {
			res.Unquoted = append(res.Unquoted, unquoteResult{Value: []byte(v)})
		}
	}
	return res
}

// durationResult is time.ParseDuration's answer: the nanoseconds as decimal text, or the error.
type durationResult struct {
	Nanos string `json:"nanos,omitempty"`
	Error string `json:"error,omitempty"`
}

func durationAnswer(r request) response {
	res := response{Parsed: []durationResult{}, Strings: []string{}, Rounded: []string{}}
	for _, s := range r.Inputs {
		d, err := time.ParseDuration(s)
		if err != nil {
			res.Parsed = append(res.Parsed, durationResult{Error: err.Error()})
		} else {
			res.Parsed = append(res.Parsed, durationResult{Nanos: strconv.FormatInt(int64(d), 10)})
		}
	}
	m, _ := strconv.ParseInt(r.RoundTo, 10, 64)
	for _, s := range r.Durations {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return response{Error: err.Error()}
		}
		res.Strings = append(res.Strings, time.Duration(n).String())
		res.Rounded = append(res.Rounded, strconv.FormatInt(int64(time.Duration(n).Round(time.Duration(m))), 10))
	}
	return res
}

// urlResult is a parsed URL's fields and accessors as strings (JSON replaces invalid UTF-8, which inputs never carry
// here), or the parse error.
type urlResult struct {
	Error       string              `json:"error,omitempty"`
	Scheme      string              `json:"scheme"`
	Opaque      string              `json:"opaque"`
	User        string              `json:"user"`
	Host        string              `json:"host"`
	Path        string              `json:"path"`
	RawPath     string              `json:"rawPath"`
	RawQuery    string              `json:"rawQuery"`
	Fragment    string              `json:"fragment"`
	RawFragment string              `json:"rawFragment"`
	EscapedPath string              `json:"escapedPath"`
	Hostname    string              `json:"hostname"`
	Port        string              `json:"port"`
	Query       map[string][]string `json:"query"`
}

func urlAnswer(r request) response {
	res := response{URLs: []urlResult{}}
	for _, s := range r.Inputs {
		var u *url.URL
		var err error
		if r.RequestURI {
			u, err = url.ParseRequestURI(s)
		} else {
			u, err = url.Parse(s)
		}
		if err != nil {
			res.URLs = append(res.URLs, urlResult{Error: err.Error()})
			continue
		}
		user := ""
		if u.User != nil {
			user = u.User.String()
		}
		res.URLs = append(res.URLs, urlResult{
			Scheme: u.Scheme, Opaque: u.Opaque, User: user, Host: u.Host, Path: u.Path, RawPath: u.RawPath,
			RawQuery: u.RawQuery, Fragment: u.Fragment, RawFragment: u.RawFragment, EscapedPath: u.EscapedPath(),
			Hostname: u.Hostname(), Port: u.Port(), Query: u.Query(),
		})
	}
	return res
}

type celResult struct {
	CompileError bool   `json:"compileError,omitempty"` // the wording is cel-go's own, so only whether it compiles
	Value        string `json:"value,omitempty"`
	Error        string `json:"error,omitempty"`
}

// renderCel prints a CEL value in a form TypeScript can reproduce: doubles as Go's %e with shortest digits, lists and
// maps (keys sorted) recursively, other types as typeName(value).
func renderCel(v ref.Val) string {
	switch x := v.(type) {
	case types.Bool, types.Int, types.Uint, types.Null:
		return fmt.Sprintf("%v", x.Value())
	case types.Double:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf("%v", f)
		}
		return strconv.FormatFloat(f, 'e', -1, 64)
	case types.String:
		return strconv.Quote(string(x))
	case *types.Optional:
		if !x.HasValue() {
			return "optional.none()"
		}
		return "optional.of(" + renderCel(x.GetValue()) + ")"
	case traits.Mapper:
		var entries []string
		it := x.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			entries = append(entries, renderCel(k)+": "+renderCel(x.Get(k)))
		}
		sort.Strings(entries)
		return "{" + strings.Join(entries, ", ") + "}"
	case traits.Lister:
		var items []string
		it := x.Iterator()
		for it.HasNext() == types.True {
			items = append(items, renderCel(it.Next()))
		}
		return "[" + strings.Join(items, ", ") + "]"
	default:
		return fmt.Sprintf("%s(%v)", v.Type().TypeName(), v.Value())
	}
}

// evalCel compiles each expression in the environment upstream compiles new x-kubernetes-validations rules in
// (environment.MustBaseEnvSet at DefaultCompatibilityVersion) and evaluates it with that environment's program
// options (runtime cost limit included).
func evalCel(r request) response {
	env := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).NewExpressionsEnv()
	results := make([]celResult, len(r.Expressions))
	for i, expr := range r.Expressions {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			results[i] = celResult{CompileError: true}
			continue
		}
		prg, err := env.Program(ast)
		if err != nil {
			results[i] = celResult{Error: "program: " + err.Error()}
			continue
		}
		val, _, err := prg.Eval(map[string]any{})
		if err != nil {
			results[i] = celResult{Error: err.Error()}
			continue
		}
		results[i] = celResult{Value: renderCel(val)}
	}
	return response{Results: results}
}

func fieldErrors(list field.ErrorList) []fieldError {
	out := make([]fieldError, 0, len(list))
	for _, e := range list {
		out = append(out, fieldError{Type: string(e.Type), Field: e.Field, Detail: e.Detail, Message: e.Error()})
	}
	return out
}

func path(r request, def string) *field.Path {
	if r.FieldPath != "" {
		return field.NewPath(r.FieldPath)
	}
	return field.NewPath(def)
}

func handle(r request) (res response) {
	defer func() {
		if p := recover(); p != nil {
			res = response{Error: fmt.Sprintf("panic: %v", p)}
		}
	}()
	ctx := context.Background()
	switch r.Op {
	case "template":
		return evalTemplate(r)
	case "regexp":
		return matchRegexp(r)
	case "cel":
		return evalCel(r)
	case "strconv":
		return strconvAnswer(r)
	case "url":
		return urlAnswer(r)
	case "duration":
		return durationAnswer(r)
	case "validateClusterClassVariables":
		return response{FieldErrors: fieldErrors(variables.ValidateClusterClassVariables(ctx, nil, r.ClassVariables, path(r, "spec.variables")))}
	case "validateClusterVariables":
		if r.Overrides {
			return response{FieldErrors: fieldErrors(variables.ValidateMachineVariables(ctx, r.Values, r.OldValues, r.Definitions, path(r, "spec.topology.variables")))}
		}
		return response{FieldErrors: fieldErrors(variables.ValidateClusterVariables(ctx, r.Values, r.OldValues, r.Definitions, path(r, "spec.topology.variables")))}
	case "defaultClusterVariables":
		var values []clusterv1.ClusterVariable
		var errs field.ErrorList
		if r.Overrides {
			values, errs = variables.DefaultMachineVariables(r.Values, r.Definitions, path(r, "spec.topology.variables"))
		} else {
			values, errs = variables.DefaultClusterVariables(r.Values, r.Definitions, path(r, "spec.topology.variables"))
		}
		if values == nil {
			values = []clusterv1.ClusterVariable{}
		}
		return response{Defaulted: values, FieldErrors: fieldErrors(errs)}
	case "validateExtensionConfig":
		return admitExtensionConfig(ctx, r, false)
	case "defaultExtensionConfig":
		return admitExtensionConfig(ctx, r, true)
	case "validateClusterClass":
		return admitClusterClass(ctx, r)
	default:
		return response{Error: "unknown op " + r.Op}
	}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		var r request
		var res response
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			res = response{Error: "bad request: " + err.Error()}
		} else {
			res = handle(r)
		}
		if err := enc.Encode(res); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	out.Flush()
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
