package router

import (
	"regexp"
	"strings"
)

// Question frames: the grammar of a request that asks about a subject
// rather than for a task (subject.go acts on it). Each frame is a way of
// asking about a thing, not an example: what it is, how it works, how it
// compares, what it is worth, what to call it, what to read about it,
// who made it and when, and how a trade or industry is doing. A frame marked
// personal does not count when the request speaks of the asker's own
// things ("我的订单状态是什么", "what is the status of order 123": a
// first-person word or a number), where the same words ask for a task.
type questionFrame struct {
	name     string
	re       *regexp.Regexp
	personal bool
	zh       bool // a Chinese frame
}

var questionFrames = []questionFrame{
	// English frames read from the start of the request: a question
	// word later on ("tell me what is failing") is the task's object.
	{"definition", regexp.MustCompile(`^(?:so\s+|ok\s+|hey\s+)?(?:what(?:'s|\s+is|\s+are)\s+(?:an?\s|[^\s]+\s*\??\s*$|(?:the\s+)?(?:meaning|point|purpose|origin)\s+of\s)|what\s+does\s.+\s+(?:mean|stand\s+for)\b)`), true, false},
	{"mechanism", regexp.MustCompile(`^(?:so\s+|ok\s+)?how\s+(?:does|do)\s.+\s+work\b`), true, false},
	{"origin", regexp.MustCompile(`^who\s+(?:invented|made|created|founded|owns|wrote)\s|^when\s+(?:was|were|did)\s.+\s(?:released|founded|invented|created|come\s+out)\b`), true, false},
	{"comparison", regexp.MustCompile(`\bdifference\s+between\b|^(?:is|are)\s.+\s(?:better|worse)\s+than\s|^(?:is|are)\s.+\s(?:the\s+)?same\s+(?:thing\s+)?as\s`), false, false},
	{"worth", regexp.MustCompile(`^(?:is|are)\s+\S+(?:\s+\S+)?\s+(?:an?\s+)?(?:good|bad|great|decent)\s+(?:\S+\s+)?(?:to|for)\b|^(?:is|are)\s.+\sworth\s+(?:it|the|learning|using)\b|^(?:is|are)\s+\S+(?:\s+\S+)?\s+still\s+(?:the\s+)?(?:recommended|popular|relevant|used|best)\b`), false, false},
	{"trade", regexp.MustCompile(`^how\s+much\s+(?:does|do)\s+(?:an?\s+)?.+\s(?:earn|get\s+paid)\b|\bsalary\s+(?:of|for)\b`), false, false},
	{"language", regexp.MustCompile(`^how\s+(?:do|would|should)\s+(?:you|i|we)\s+(?:pronounce|spell|say)\s|\bin\s+(?:english|chinese|spanish|french|german|japanese)\s*\??$`), false, false},
	{"recommendation", regexp.MustCompile(`^(?:can\s+you\s+|could\s+you\s+|please\s+)?recommend\s+(?:me\s+)?(?:an?|some|any|good)\s|\bany\s+(?:good\s+)?recommendations?\s+for\b`), false, false},

	// Chinese frames read anywhere: the subject comes first ("退款和退货
	// 有什么区别"), the frame after it.
	{"定义", regexp.MustCompile(`什么是|什么叫|何为|是什么意思|什么意思|啥意思|指的是什么|是指什么|的意思是`), false, true},
	{"定义(句末)", regexp.MustCompile(`是(?:什么|啥)[？?吗呀呢]*$`), true, true},
	{"比较", regexp.MustCompile(`(?:有什么|有何|有啥)(?:区别|不同|差别|差异)|(?:区别|差别|差异)(?:是什么|在哪)|的区别|的差别|哪个更?好|(?:一样|相同|一回事)吗|有什么不一样`), false, true},
	{"评价", regexp.MustCompile(`怎么样[？?吗啊呀呢]*$|好不好|靠谱吗|值不值|值得[买用学]?吗|是不是很|前景`), true, true},
	{"行业", regexp.MustCompile(`行业|这行|职业|工资|薪水|挣多少`), false, true},
	{"语言", regexp.MustCompile(`这个(?:词|字)|(?:英文|英语|中文|日语)(?:里)?(?:怎么|怎样|咋)(?:说|讲|写)|用(?:英文|英语)|怎么(?:读|念|拼)`), false, true},
	{"推荐", regexp.MustCompile(`有(?:什么|没有|哪些).{0,12}推荐|推荐(?:一下|几个|一个|一些|些)`), false, true},
}

// personalWord is what makes a personal frame a task: the asker's own
// things ("my", "our", 我), the things at hand ("this", "here"), a
// number standing alone (order 123, node-7; not p99) or a file name (body.go).
var personalWord = regexp.MustCompile(`我|您|咱|\b[0-9]+\b|\b(?:this|these|here|my|our)\b|\w\.[a-z]{1,4}\b`)

// askAboutSubject reports the first question frame text (lowercased,
// trimmed) is said in, or "". The Chinese frames are read only in a
// request that holds a rune of an unspaced script.
func askAboutSubject(text string) string {
	l := strings.TrimSpace(strings.ToLower(text))
	zh := hasUnspaced(l)
	for _, f := range questionFrames {
		if f.zh && !zh {
			continue
		}
		if f.re.MatchString(l) && !(f.personal && personalWord.MatchString(l)) {
			return f.name
		}
	}
	return ""
}
